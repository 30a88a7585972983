import { renameRowIdColumn, returnRowObjects } from '../advice/advice.js';
import { S2SPError } from '../errors.js';
import { describeType, isPlainObject, type Row, setColumn, stringifyJson } from '../json.js';
import { PROTOCOL } from '../protocol.js';
import type { RowWithId } from '../resource-result.js';
import type { StoredTable } from './body-store.js';

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
 * the document it parsed, which costs no copy of the table. Texts that do not fit (a different
 * count, a line break) are ignored and the rows are stringified as usual.
 *
 * @param rows - the very array later given to `prepareTable`
 * @param json - `JSON.parse(json[i])` must equal `rows[i]`
 */
export function attachRowJson(rows: readonly Row[], json: readonly string[]): void {
  if (json.length === rows.length) rowTexts.set(rows, json);
}

function rowFromText(row: Row, text: string, rowId: number): string {
  if (text.includes('\n') || text.includes('\r')) return serializeRow(row, rowId);
  for (const _ in row) return `{"_row_id":${rowId},${text.slice(text.indexOf('{') + 1)}`;
  return `{"_row_id":${rowId}}`;
}

/**
 * Serialises a table's full rows (every column plus `_row_id`) for the body store, once.
 *
 * @throws S2SPError `invalid_rows` if a row holds a value JSON cannot represent (BigInt, a cycle)
 */
export function serializeTable(table: Table): StoredTable {
  const texts = rowTexts.get(table.rows);
  return {
    columns: table.columns,
    rows: table.rows.map((row, i) => {
      const text = texts?.[i];
      return text === undefined ? serializeRow(row, i) : rowFromText(row, text, i);
    }),
  };
}
