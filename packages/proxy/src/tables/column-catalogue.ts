/**
 * A table tool's column catalogue: for each column, roughly how many tokens it adds to an
 * abstract row and how distinctive its values are — so that a model can pick cheap abstract
 * columns, and `abstract_budget_tokens` can pick them for it. Costs come from the server's one
 * token estimate (`estimateTokens`) and distinctiveness from its column profile (`profileColumns`).
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import { PROXY_TABLE_TEXT } from '../advice.js';
import type { GatewayParts } from './s2sp-call.js';

/** One column of a catalogue. */
export interface CatalogueColumn {
  readonly name: string;
  /** Estimated o200k tokens the column adds to one abstract row (`"name":value,`), rounded up. */
  readonly tokensPerRow: number;
  /** Distinct values per row with a value, 0–1 (1: every row differs). */
  readonly distinct: number;
}

/** Rows read to measure a table: evenly spread, so a large table costs no more than this. */
export const CATALOGUE_SAMPLE_ROWS = 2_000;
/** Columns listed in a description, and kept per tool and client. */
export const MAX_CATALOGUE_COLUMNS = 50;
/** Characters of a column name shown or kept: names are the upstream's (or a client's) text. */
export const MAX_COLUMN_CHARS = 64;

/**
 * The rows of a table of `length` rows that the catalogue and the budget measure (every row of a
 * small table): a table read without its other values keeps these whole.
 */
export function sampledRows(length: number): number[] {
  const count = Math.min(length, CATALOGUE_SAMPLE_ROWS);
  const step = length / count;
  return Array.from({ length: count }, (_, i) => Math.floor(i * step));
}

function sample(rows: readonly Row[]): readonly Row[] {
  if (rows.length <= CATALOGUE_SAMPLE_ROWS) return rows;
  return sampledRows(rows.length).map((i) => rows[i] as Row);
}

/** The servers' measures a catalogue is made with (`GATEWAY_PARTS`). */
export type ColumnMeasures = Pick<GatewayParts, 'estimateTokens' | 'profileColumns'>;

/** Tokens one `"name":value,` costs in every sampled row, summed. */
function columnTokens(
  rows: readonly Row[],
  name: string,
  estimateTokens: ColumnMeasures['estimateTokens'],
): number {
  const key = `${JSON.stringify(name)}:`;
  let tokens = 0;
  for (const row of rows) {
    const value = Object.hasOwn(row, name) ? row[name] : undefined;
    if (value === undefined) continue;
    tokens += estimateTokens(`${key}${JSON.stringify(value)},`);
  }
  return tokens;
}

/**
 * Measures the columns of a table.
 *
 * @param rows - the table
 * @param columns - the columns to measure, in the order to keep
 * @param measures - the servers' token estimate and column profile
 */
export function measureColumns(
  rows: readonly Row[],
  columns: readonly string[],
  measures: ColumnMeasures,
): CatalogueColumn[] {
  const sampled = sample(rows);
  const profile = measures.profileColumns(sampled, columns, { distinct: true, top: 0 });
  return columns.map((name) => {
    const column = profile[name];
    const missing = column?.missing ?? 0;
    const present = sampled.length - missing;
    const distinct =
      column && 'distinct' in column && column.distinct !== undefined ? column.distinct : 0;
    return {
      name,
      tokensPerRow:
        sampled.length === 0
          ? 0
          : Math.ceil(columnTokens(sampled, name, measures.estimateTokens) / sampled.length),
      distinct: present > 0 ? Math.round((distinct / present) * 100) / 100 : 0,
    };
  });
}

/** What {@link pickColumns} chose, or the least a choice needs. */
export type PickedColumns =
  | { readonly ok: true; readonly columns: string[]; readonly tokens: number }
  | { readonly ok: false; readonly needed: number };

/**
 * Picks abstract columns within a token budget for the whole abstract: the `required` columns
 * (those a filter names), then the most distinctive columns that still fit (the cheaper first
 * among equals). Costs are estimates from a sample, scaled to the table.
 *
 * @param rows - the table
 * @param columns - its columns
 * @param budget - tokens the abstract may take
 * @param required - columns that must be in the abstract
 * @param measures - the servers' token estimate and column profile
 */
export function pickColumns(
  rows: readonly Row[],
  columns: readonly string[],
  budget: number,
  required: readonly string[],
  measures: ColumnMeasures,
): PickedColumns {
  const sampled = sample(rows);
  const scale = sampled.length === 0 ? 0 : rows.length / sampled.length;
  // Each abstract row costs its `{"_row_id":n}` whatever the columns.
  const base = Math.ceil(
    sampled.reduce((sum, _, i) => sum + measures.estimateTokens(`{"_row_id":${i}},`), 0) * scale,
  );
  const measured = measureColumns(rows, columns, measures);
  const cost = (column: CatalogueColumn) => Math.ceil(column.tokensPerRow * rows.length);
  let tokens = base;
  const picked: string[] = [];
  for (const name of required) {
    const column = measured.find((c) => c.name === name);
    tokens += column ? cost(column) : 0;
    picked.push(name);
  }
  if (tokens > budget) return { ok: false, needed: tokens };
  const candidates = measured
    .filter((column) => !picked.includes(column.name) && column.tokensPerRow > 0)
    .sort((a, b) => b.distinct - a.distinct || a.tokensPerRow - b.tokensPerRow);
  for (const column of candidates) {
    if (tokens + cost(column) > budget) continue;
    tokens += cost(column);
    picked.push(column.name);
  }
  if (picked.length === 0) {
    const cheapest = Math.min(...candidates.map(cost));
    return { ok: false, needed: base + (Number.isFinite(cheapest) ? cheapest : 0) };
  }
  return { ok: true, columns: picked, tokens };
}

function shown(name: string): string {
  return JSON.stringify(
    name.length > MAX_COLUMN_CHARS ? `${name.slice(0, MAX_COLUMN_CHARS)}…` : name,
  );
}

function more(total: number, listed: number): string {
  return total > listed ? ` … and ${(total - listed).toLocaleString('en-US')} more` : '';
}

/**
 * The catalogue sentence of a description. Column names are data (the upstream's, or chosen by
 * the client's own query), so they are quoted and cut, and at most {@link MAX_CATALOGUE_COLUMNS}.
 *
 * @param columns - the measured columns
 * @param total - how many columns the table had (more than listed when cut)
 */
export function catalogueSentence(
  columns: readonly CatalogueColumn[],
  total = columns.length,
): string {
  const listed = columns.slice(0, MAX_CATALOGUE_COLUMNS);
  const items = listed.map((c) => `${shown(c.name)} ~${c.tokensPerRow}`);
  return `\n\n${PROXY_TABLE_TEXT.catalogue}: ${items.join(', ')}${more(total, listed.length)}.`;
}

/** The sentence listing declared columns (no costs yet). */
export function declaredColumnsSentence(columns: readonly string[]): string {
  const listed = columns.slice(0, MAX_CATALOGUE_COLUMNS);
  return `\n\n${PROXY_TABLE_TEXT.declaredColumns}: ${listed.map(shown).join(', ')}${more(columns.length, listed.length)}.`;
}

/**
 * The sentence listing the arrays of rows of a tool's last result (several: the model names one
 * with `table`). Their names are the upstream's data: quoted, cut and labelled as such.
 *
 * @param arrays - at most a few (see `MAX_LISTED_ARRAYS`)
 * @param total - how many the result had
 */
export function arraysSentence(
  arrays: readonly { readonly pointer: string; readonly rows: number }[],
  total = arrays.length,
): string {
  const items = arrays.map((a) => `${shown(a.pointer)} (${a.rows.toLocaleString('en-US')} rows)`);
  return `\n\n${PROXY_TABLE_TEXT.arrays}: ${items.join(', ')}${more(total, arrays.length)}.`;
}
