const ROW_ID = PROTOCOL.rowId;

import { PROTOCOL, type Row, type RowWithId, S2SPError } from '@s2sp/core';
import { describeType, setColumn } from '@s2sp/core/json';
import { passRowsExactly } from '../advice.js';

/**
 * The compact encoding of abstract rows (PROTOCOL §7, compact encoding): a header row naming
 * `_row_id` and the abstract columns, then one array of values per row — the keys are written once
 * instead of once per row. An absent value is `null`. Rows whose values are all equal share one
 * value row whose `_row_id` cell is the list of their ids (in table order), so a column of few
 * distinct values costs little however many rows repeat them.
 *
 * @example
 * ```json
 * [["_row_id","event","severity"],[[0,2],"Wind Advisory","Moderate"],[1,"Flood Watch","Severe"]]
 * ```
 */
export type CompactRows = unknown[][];

/**
 * Encodes abstract rows compactly: `[[ "_row_id", ...columns ], [id, ...values], …]`.
 *
 * @param rows - abstract rows (`_row_id` first)
 * @param columns - the abstract columns, in order
 */
export function encodeCompactRows(
  rows: readonly RowWithId[],
  columns: readonly string[],
): CompactRows {
  const groups = new Map<string, { ids: number[]; values: unknown[] }>();
  for (const row of rows) {
    const values: unknown[] = [];
    for (const column of columns) {
      values.push(Object.hasOwn(row, column) ? (row[column] ?? null) : null);
    }
    const key = JSON.stringify(values);
    const group = groups.get(key);
    if (group) group.ids.push(row._row_id);
    else groups.set(key, { ids: [row._row_id], values });
  }
  const out: CompactRows = [[ROW_ID, ...columns]];
  for (const { ids, values } of groups.values())
    out.push([ids.length === 1 ? ids[0] : ids, ...values]);
  return out;
}

/** True when `value` looks like compact rows: an array whose first item is a header naming `_row_id`. */
export function isCompactRows(value: unknown): value is CompactRows {
  if (!Array.isArray(value) || value.length === 0) return false;
  const header = value[0];
  return (
    Array.isArray(header) &&
    header.includes(ROW_ID) &&
    header.every((name: unknown) => typeof name === 'string')
  );
}

/**
 * Decodes compact rows back into row objects, one per `_row_id` (a value row with a list of ids
 * stands for one row per id). `null` values are left out, so that merging with the full rows from
 * the data plane fills them in.
 *
 * @param name - the argument's name, for errors
 * @throws S2SPError `invalid_request` when a row is not an array as long as the header
 */
export function decodeCompactRows(name: string, value: CompactRows): Row[] {
  const header = value[0] as string[];
  const idColumn = header.indexOf(ROW_ID);
  return value.slice(1).flatMap((values, i) => {
    if (!Array.isArray(values) || values.length !== header.length) {
      throw new S2SPError(
        'invalid_request',
        `${name}[${i + 1}] is ${describeType(values)}${Array.isArray(values) ? ` of ${values.length} values` : ''}, but the header row names ${header.length} columns. ${passRowsExactly}`,
      );
    }
    const ids: unknown[] = Array.isArray(values[idColumn]) ? values[idColumn] : [values[idColumn]];
    return ids.map((id) => {
      const row: Row = {};
      header.forEach((column, j) => {
        const cell = j === idColumn ? id : values[j];
        if (cell !== null && cell !== undefined) setColumn(row, column, cell);
      });
      return row;
    });
  });
}
