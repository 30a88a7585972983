import { renameRowIdColumn, returnRowObjects } from '../advice/advice.js';
import { S2SPError } from '../errors.js';
import { describeType, isPlainObject, type Row, setColumn, stringifyJson } from '../json.js';
import { PROTOCOL } from '../protocol.js';
import type { RowWithId } from '../resource-result.js';
import type { StoredTable } from './body-store.js';
import { storedRowsFromBytes } from './row-bytes.js';

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

/**
 * Picks `columns` from `row` into a new row that starts with `_row_id`. Absent (or `undefined`)
 * values stay absent.
 */
export function projectRow(row: Row, rowId: number, columns: readonly string[]): RowWithId {
  const out: RowWithId = { [ROW_ID]: rowId };
  for (const column of columns) {
    const value = row[column];
    if (value !== undefined && Object.hasOwn(row, column)) setColumn(out, column, value);
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

// Row texts a caller already holds, by rows array (see attachRowJson).
const rowTexts = new WeakMap<readonly Row[], readonly string[]>();

/**
 * Hands {@link serializeTable} the JSON text each row was parsed from (one JSON object per row, in
 * order, with no line break), so that it reuses those texts rather than stringifying the rows
 * again. For a caller that parsed a large table from text (the proxy): the texts can be slices of
 * the document it parsed, which costs no copy of the table. A different count ignores the texts;
 * a text with a line break, or with no members, is stored from its row instead.
 *
 * The stored row is the text, so the row objects need only what the rest of the result reads
 * from them (the table's columns, the abstract's values): a caller may leave the other values
 * out, as long as every such row's text is one line.
 *
 * @param rows - the very array later given to `prepareTable`
 * @param json - `json[i]` is row `i`'s JSON text (`JSON.parse(json[i])` equals `rows[i]`, or
 *   holds more of its values)
 */
export function attachRowJson(rows: readonly Row[], json: readonly string[]): void {
  if (json.length === rows.length) rowTexts.set(rows, json);
}

// The stored rows serializeTable made from row texts, by stored rows array: row `i` is
// `{"_row_id":i,` followed by `tails[i]` when that is set (see encodedRowTails).
const rowTails = new WeakMap<readonly string[], readonly (string | undefined)[]>();

/**
 * For each stored row of `rows` that {@link serializeTable} made from a row text, the part after
 * its `{"_row_id":i,`: a slice of the caller's text. `encodeRows` encodes the prefix and this
 * slice apart, because encoding the joined row would make V8 flatten it — a copy of every row of
 * the table, held as long as the stored rows are (issue 30). `undefined` for other arrays.
 */
export function encodedRowTails(
  rows: readonly string[],
): readonly (string | undefined)[] | undefined {
  return rowTails.get(rows);
}

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
 * Serialises a table's full rows (every column plus `_row_id`) for the body store, once. Rows
 * given as bytes ({@link attachRowBytes}) are not decoded: the stored rows read them on access, and
 * a store's {@link encodeRows} takes the bytes as they are.
 *
 * @throws S2SPError `invalid_rows` if a row holds a value JSON cannot represent (BigInt, a cycle)
 */
export function serializeTable(table: Table): StoredTable {
  const fromBytes = storedRowsFromBytes(table.rows);
  if (fromBytes) return { columns: table.columns, rows: fromBytes };
  const texts = rowTexts.get(table.rows);
  if (!texts) return { columns: table.columns, rows: table.rows.map(serializeRow) };
  const tails: (string | undefined)[] = [];
  const rows = table.rows.map((row, i) => {
    const text = texts[i];
    const tail = text === undefined ? undefined : rowTail(text);
    tails.push(tail);
    // One flat prefix and one join per row (a template literal makes a chain of joins, each an
    // object of its own: tens of megabytes over a large table).
    return tail === undefined ? serializeRow(row, i) : ['{"_row_id":', i, ','].join('') + tail;
  });
  rowTails.set(rows, tails);
  // The texts are read: the rows' tails are what stays, with the stored rows.
  rowTexts.delete(table.rows);
  return { columns: table.columns, rows };
}
