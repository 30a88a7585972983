import type { Row, RowFilter, RowWithId } from '@s2sp/core';
import { filterRows } from '@s2sp/core/store';
import { projectRow, type Table } from './table.js';

/**
 * A split's abstract rows, made when they are read rather than held: a large table's abstract
 * is read a page at a time, and an object per row beside the table's own rows was the largest
 * part of its result's memory (issue 38: 37 MB for a CSV of 566k short rows, 1.8 times the CSV).
 */
export interface AbstractRows {
  /** How many rows the abstract has (the table's, or those a filter kept). */
  readonly length: number;
  /**
   * The table rows the abstract is made from, in order: the abstract columns' values are theirs
   * (read them here, without making abstract rows).
   */
  readonly source: readonly Row[];
  /** The `_row_id` of abstract row `k`. */
  id(k: number): number;
  /** Abstract rows `[start, end)` (default: all), made now. */
  slice(start?: number, end?: number): RowWithId[];
}

/** The control-plane half of a table: what the LLM sees. */
export interface ColumnSplit {
  /** The requested abstract columns, as given. */
  readonly abstractDomains: readonly string[];
  /** Every other column of the table, in first-seen order. */
  readonly bodyDomains: readonly string[];
  /** One row per table row (or per row the filter kept): `_row_id` then the abstract columns present. */
  readonly abstract: AbstractRows;
}

/**
 * Splits a table by columns (PROTOCOL §2). The caller has already checked the abstract domains
 * against the table with {@link assertKnownColumns}.
 *
 * @param table - the prepared table
 * @param abstractDomains - parsed, non-empty abstract domains
 * @param filter - keeps the rows that meet it (PROTOCOL §7.3: it names abstract columns only, so
 *   the table's rows meet it exactly when their abstract rows do)
 * @throws S2SPError `payload_too_large` from {@link filterRows}'s bound on the work
 */
export function splitColumns(
  table: Table,
  abstractDomains: readonly string[],
  filter?: RowFilter,
): ColumnSplit {
  const chosen = new Set(abstractDomains);
  const source = filter ? filterRows(table.rows, filter) : table.rows;
  return {
    abstractDomains,
    bodyDomains: table.columns.filter((c) => !chosen.has(c)),
    abstract: abstractRows(source, filter ? keptIds(table.rows, source) : undefined, [
      ...abstractDomains,
    ]),
  };
}

/**
 * Where each kept row is in the table: `kept` is `rows` filtered, in order (a row given twice is
 * kept or left out both times, so matching by identity in order finds each one's own place).
 */
function keptIds(rows: readonly Row[], kept: readonly Row[]): Uint32Array {
  const ids = new Uint32Array(kept.length);
  let k = 0;
  for (let i = 0; i < rows.length && k < kept.length; i++) if (rows[i] === kept[k]) ids[k++] = i;
  return ids;
}

function abstractRows(
  source: readonly Row[],
  ids: Uint32Array | undefined,
  columns: readonly string[],
): AbstractRows {
  const id = ids ? (k: number) => ids[k] as number : (k: number) => k;
  return {
    length: source.length,
    source,
    id,
    slice(start = 0, end = source.length) {
      const out: RowWithId[] = [];
      for (let k = Math.max(0, start); k < Math.min(end, source.length); k++)
        out.push(projectRow(source[k] as Row, id(k), columns));
      return out;
    },
  };
}

/**
 * The sync-mode body: for every row of the abstract (every row, or those a filter kept), in its
 * order, `_row_id` plus its body columns.
 *
 * @param table - the prepared table
 * @param bodyDomains - from {@link splitColumns}
 * @param abstract - the split's abstract rows, whose rows the body holds (default: every row)
 */
export function bodyRows(
  table: Table,
  bodyDomains: readonly string[],
  abstract: Pick<AbstractRows, 'length' | 'id'> = { length: table.rows.length, id: (k) => k },
): RowWithId[] {
  const out: RowWithId[] = new Array(abstract.length);
  for (let k = 0; k < abstract.length; k++) {
    const id = abstract.id(k);
    out[k] = projectRow(table.rows[id] as Row, id, bodyDomains);
  }
  return out;
}
