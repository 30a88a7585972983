import type { RowWithId } from '@s2sp/core';
import { projectRow, type Table } from './table.js';

/** The control-plane half of a table: what the LLM sees. */
export interface ColumnSplit {
  /** The requested abstract columns, as given. */
  readonly abstractDomains: readonly string[];
  /** Every other column of the table, in first-seen order. */
  readonly bodyDomains: readonly string[];
  /** One row per table row: `_row_id` then the abstract columns present in that row. */
  readonly abstract: RowWithId[];
}

/**
 * Splits a table by columns (PROTOCOL §2). The caller has already checked the abstract domains
 * against the table with {@link assertKnownColumns}.
 *
 * @param table - the prepared table
 * @param abstractDomains - parsed, non-empty abstract domains
 */
export function splitColumns(table: Table, abstractDomains: readonly string[]): ColumnSplit {
  const chosen = new Set(abstractDomains);
  return {
    abstractDomains,
    bodyDomains: table.columns.filter((c) => !chosen.has(c)),
    abstract: table.rows.map((row, i) => projectRow(row, i, abstractDomains)),
  };
}

/**
 * The sync-mode body: for every row, `_row_id` plus its body columns.
 *
 * @param table - the prepared table
 * @param bodyDomains - from {@link splitColumns}
 */
export function bodyRows(table: Table, bodyDomains: readonly string[]): RowWithId[] {
  return table.rows.map((row, i) => projectRow(row, i, bodyDomains));
}
