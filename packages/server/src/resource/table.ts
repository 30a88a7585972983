import { PROTOCOL, type Row, type RowWithId, S2SPError } from '@s2sp/core';
import { describeType, isPlainObject, setColumn } from '@s2sp/core/json';
import { encodeRows, type StoredTable } from '@s2sp/core/store';
import { renameRowIdColumn, returnRowObjects } from '../advice.js';
import { type RowBytes, storedRowsFromBytes } from './row-bytes.js';
import { stringifyJson } from './stringify-json.js';

const ROW_ID = PROTOCOL.rowId;

/**
 * A validated table: the tool's rows, untouched, plus the union of their columns in first-seen
 * order. Row `i` has `_row_id` `i`.
 */
export interface Table {
  /** The rows as the tool returned them (no `_row_id` key). */
  readonly rows: readonly Row[];
  /** Every column that has a value in at least one row, in first-seen order. */
  readonly columns: readonly string[];
}

/**
 * Validates a tool result as a table and collects its columns.
 *
 * Keys whose value is `undefined` do not count as columns, because JSON drops them.
 *
 * @param rows - what a resource tool's handler returned
 * @returns the table
 * @throws S2SPError `invalid_rows` if `rows` is not an array of plain objects, or if a row already
 *   has a `_row_id` (it is reserved; overwriting it would silently change the tool's data)
 */
export function prepareTable(rows: unknown): Table {
  if (!Array.isArray(rows)) {
    throw new S2SPError(
      'invalid_rows',
      `A resource tool must return an array of row objects, but it returned ${describeType(rows)}. ${returnRowObjects}`,
    );
  }
  const seen = new Set<string>();
  const columns: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row: unknown = rows[i];
    if (!isPlainObject(row)) {
      throw new S2SPError(
        'invalid_rows',
        `Row ${i} of the tool result is ${describeType(row)}, not an object. ${returnRowObjects}`,
      );
    }
    for (const key in row) {
      if (row[key] === undefined || seen.has(key)) continue;
      if (key === ROW_ID) {
        throw new S2SPError(
          'invalid_rows',
          `Row ${i} of the tool result already has a "${ROW_ID}" column. ${renameRowIdColumn}`,
        );
      }
      seen.add(key);
      columns.push(key);
    }
  }
  return { rows: rows as Row[], columns };
}

const isEnumerable = Object.prototype.propertyIsEnumerable;

/**
 * Picks `columns` from `row` into a new row that starts with `_row_id`. Absent (or `undefined`)
 * values stay absent, and so do inherited and non-enumerable ones: the projection holds what the
 * row's JSON holds (the rows an async result stores, and the sync receipt's plain length).
 */
export function projectRow(row: Row, rowId: number, columns: readonly string[]): RowWithId {
  const out: RowWithId = { [ROW_ID]: rowId };
  for (const column of columns) {
    const value = row[column];
    if (value !== undefined && isEnumerable.call(row, column)) setColumn(out, column, value);
  }
  return out;
}

/**
 * Serialises row `rowId` as compact JSON with `_row_id` as its first key. Rows are serialised
 * once, when they are cached, so that the data plane can answer by concatenating strings: this is
 * the row encoding of {@link StoredTable}.
 *
 * @param row - a row without `_row_id`
 * @param rowId - its index in the table
 */
export function serializeRow(row: Row, rowId: number): string {
  const json = stringifyJson(row, `Row ${rowId} of the tool result`);
  // `{}` has no members to separate from the id with a comma.
  return json.length === 2 ? `{"_row_id":${rowId}}` : `{"_row_id":${rowId},${json.slice(1)}`;
}

/** A table serialised for the store by {@link serializeTable}. */
export interface SerializedTable extends StoredTable {
  /**
   * Row `i`'s stored JSON length in UTF-16 code units (`rows[i].length`), known without reading
   * the row: a table stored from bytes decodes a row each time it is read.
   */
  readonly rowLengths: Uint32Array;
}

/**
 * The JSON a table's rows were parsed from, for a caller that still holds it (the proxy, which
 * parses an upstream's answer): {@link serializeTable} stores the rows from it rather than
 * stringifying them again, and from bytes without a copy at all.
 *
 * - `texts`: row `i`'s JSON text, one object per row in order (`JSON.parse(texts[i])` equals row
 *   `i`, or holds more of its values). The texts can be slices of the document the caller parsed,
 *   which costs no copy of the table. A different count is ignored; a text with a line break, or
 *   with no members, is stored from its row instead.
 * - `bytes`: the rows' UTF-8 JSON inside one buffer ({@link RowBytes}), which the caller gives up.
 *
 * Either way the row objects need only what the rest of the result reads from them (the table's
 * columns, the abstract's values): a caller may leave the other values out.
 */
export type RowJson = { readonly texts: readonly string[] } | { readonly bytes: RowBytes };

/**
 * What follows `{` in a row text, or `undefined` when the text has a line break or no members.
 * Read from the text alone: the caller's row objects may hold only some of its values.
 */
function rowTail(text: string): string | undefined {
  if (text.includes('\n') || text.includes('\r')) return undefined;
  const open = text.indexOf('{');
  let at = open + 1;
  while (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9) at++;
  return open < 0 || text.charCodeAt(at) === 125 /* } */ ? undefined : text.slice(open + 1);
}

/**
 * Serialises a table's full rows (every column plus `_row_id`) for the body store, once. With
 * `json`, the rows' own JSON, the stored table carries its encoding ({@link StoredTable.encode}):
 * from bytes it is built in place in the caller's buffer, from texts each row is encoded as its
 * prefix and its text apart (see `encodeRows`'s `tails`), so a large table is never copied.
 *
 * @param table - from {@link prepareTable}
 * @param json - the JSON the rows were parsed from, when the caller holds it
 * @throws S2SPError `invalid_rows` if a row holds a value JSON cannot represent (BigInt, a cycle),
 *   or when `json.bytes` does not describe the table's rows
 */
export function serializeTable(table: Table, json?: RowJson): SerializedTable {
  if (json && 'bytes' in json) {
    return { columns: table.columns, ...storedRowsFromBytes(table.rows, json.bytes) };
  }
  const lengthsOf = (rows: readonly string[]) => Uint32Array.from(rows, (row) => row.length);
  const texts = json?.texts;
  if (!texts || texts.length !== table.rows.length) {
    const rows = table.rows.map(serializeRow);
    return { columns: table.columns, rows, rowLengths: lengthsOf(rows) };
  }
  const tails: (string | undefined)[] = [];
  const rows = table.rows.map((row, i) => {
    const text = texts[i];
    const tail = text === undefined ? undefined : rowTail(text);
    tails.push(tail);
    // One flat prefix and one join per row (a template literal makes a chain of joins, each an
    // object of its own: tens of megabytes over a large table).
    return tail === undefined ? serializeRow(row, i) : ['{"_row_id":', i, ','].join('') + tail;
  });
  // The texts are read: the rows' tails are what stays, with the stored rows.
  return {
    columns: table.columns,
    rows,
    rowLengths: lengthsOf(rows),
    encode: (allocate) => encodeRows(rows, { tails, allocate }),
  };
}
