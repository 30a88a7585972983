/**
 * A header plus records of values → rows of objects, the one shape every non-JSON format (CSV,
 * TSV, Markdown, HTML) and the JSON `{"columns": [...], "rows": [[...]]}` shape end in.
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import { setColumn } from '@s2sp/core/json';
import { pacer, runNow, type Steps } from './parse-steps.js';

/** Rows, or why the records do not make a table. */
export type HeaderRows =
  | { readonly ok: true; readonly rows: Row[] }
  | { readonly ok: false; readonly reason: string };

// A JSON number without leading zeros ("007" is an identifier, not 7).
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * True when `text` is a number that survives the trip to a JS number and back as the same text:
 * typed, the cell a consumer redeems still equals the one the upstream printed (not a DECIMAL's
 * `74.50`, not a 20-digit id).
 */
export function isNumberText(text: string): boolean {
  if (text.length > 32 || !NUMBER.test(text)) return false;
  return String(Number(text)) === text;
}

/**
 * Builds rows from a header and records.
 *
 * @param header - column names, unique (an empty one is named `column_<n>`)
 * @param records - one array per row, as long as the header
 * @param options.typeNumbers - text cells: a column whose every cell is a number becomes numbers;
 *   any other column (one empty or non-numeric cell) stays text
 * @param options.firstLine - the line (or row) number of `records[0]`, for messages
 */
export function rowsFromHeader(
  header: readonly unknown[],
  records: readonly (readonly unknown[])[],
  options: HeaderRowsOptions,
): HeaderRows {
  return runNow(headerRowsSteps(header, records, options));
}

/** Options of {@link rowsFromHeader}. */
export interface HeaderRowsOptions {
  readonly typeNumbers: boolean;
  readonly firstLine: number;
  readonly unit: string;
}

/**
 * The column names of a header row: each cell trimmed, an empty one named `column_<n>`; a reason
 * when a cell is no name or a name comes twice.
 */
export function headerNames(
  header: readonly unknown[],
): string[] | { readonly ok: false; readonly reason: string } {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const [i, cell] of header.entries()) {
    // An empty header cell (a spreadsheet's corner cell above its row numbers) gets a name.
    const name =
      cell === '' ? `column_${i + 1}` : typeof cell === 'string' ? cell.trim() : undefined;
    if (!name) return { ok: false, reason: `header cell ${i + 1} is not a column name` };
    if (seen.has(name)) {
      return {
        ok: false,
        reason: `the header names the column ${JSON.stringify(name.slice(0, 64))} twice`,
      };
    }
    seen.add(name);
    names.push(name);
  }
  return names;
}

/** {@link rowsFromHeader}, pausing as it goes (see `parse-steps.ts`). */
export function* headerRowsSteps(
  header: readonly unknown[],
  records: readonly (readonly unknown[])[],
  options: HeaderRowsOptions,
): Steps<HeaderRows> {
  const pace = pacer();
  const named = headerNames(header);
  if (!Array.isArray(named)) return named;
  const names = named;
  yield;
  const numeric = names.map(() => options.typeNumbers && records.length > 0);
  for (const [i, record] of records.entries()) {
    if (record.length !== names.length) {
      return {
        ok: false,
        reason: `${options.unit} ${options.firstLine + i} has ${record.length} cells, the header ${names.length}`,
      };
    }
    // A column is numbers when every one of its cells is.
    for (let c = 0; c < names.length; c++) {
      if (!numeric[c]) continue;
      const value = record[c];
      numeric[c] = typeof value === 'string' && isNumberText(value);
    }
    if (pace.due(names.length)) yield;
  }
  const rows: Row[] = [];
  for (const record of records) {
    const row: Row = {};
    for (let c = 0; c < names.length; c++) {
      const value = record[c];
      setColumn(row, names[c] as string, numeric[c] ? Number(value) : (value as Row[string]));
    }
    rows.push(row);
    if (pace.due(names.length)) yield;
  }
  return { ok: true, rows };
}
