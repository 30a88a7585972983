/**
 * The rules every body store shares, so that stores agree: the TTL a store accepts, what an entry
 * is charged against a byte budget, and the words of the refusals a store gives (a full store, a
 * take that asks for more rows than the table has).
 *
 * @module
 */

import { askForFewerRows, rowIdsOverTable, waitForExpiry } from '../advice/advice.js';
import { S2SPError } from '../errors.js';
import type { StoredTable } from './body-store.js';

/**
 * The refusal of a take that asks for more row ids than the table has rows (the entry stays).
 *
 * @param asked - how many ids were asked for
 * @param tableRows - how many rows the table has
 */
export function tooManyRowIds(asked: number, tableRows: number): S2SPError {
  return new S2SPError('invalid_request', rowIdsOverTable(asked, tableRows));
}

/**
 * The refusal of a `put` over a store's byte budget (live entries are never evicted to make room):
 * the same words from every store, with the advice that fits the case.
 *
 * @param used - bytes the store holds now (`undefined` when the store cannot say)
 * @param maxBytes - the budget
 * @param needed - what the new entry would be charged (see {@link chargedEntryBytes})
 */
export function storeFullError(
  used: number | undefined,
  maxBytes: number,
  needed: number,
): S2SPError {
  const hint =
    needed > maxBytes
      ? `This one result is larger than the whole cache. ${askForFewerRows('maxBytes')}`
      : waitForExpiry('maxBytes');
  return new S2SPError(
    'store_full',
    `The S2SP cache is full (${used ?? '?'} of ${maxBytes} bytes in use, this result needs ${needed}). ${hint}`,
  );
}

/** Largest delay `setTimeout` accepts (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Checks a TTL given to a store; shared by every store so they agree on what is valid. */
export function assertValidTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0 || ttlMs > MAX_TIMER_MS) {
    throw new S2SPError(
      'invalid_config',
      `ttlMs must be a whole number of milliseconds between 1 and ${MAX_TIMER_MS}, got ${String(ttlMs)}.`,
    );
  }
}

/**
 * What an entry costs a store beyond its serialised rows, counted against byte budgets: the
 * key, the bookkeeping objects and the timer (about 770 bytes of heap per empty entry in the
 * memory store on Node 20, measured), rounded up. Without it an empty result counted 0 bytes, so
 * one client could fill a store with 100 000 of them.
 */
export const ENTRY_OVERHEAD_BYTES = 1024;

/** What each row costs a store beyond its JSON: its offset (4 bytes in both stores). */
export const ROW_OVERHEAD_BYTES = 4;

/**
 * The bytes an entry is charged against a store's budget: its serialised size plus the per-entry
 * and per-row overhead.
 *
 * @param size - {@link storedTableSize} (or the memory store's UTF-8 size)
 * @param rows - the table's row count
 */
export function chargedEntryBytes(size: number, rows: number): number {
  return size + ENTRY_OVERHEAD_BYTES + ROW_OVERHEAD_BYTES * rows;
}

/** Size of a stored table in JSON characters, as counted against store budgets. */
export function storedTableSize(table: StoredTable): number {
  let bytes = 0;
  for (const row of table.rows) bytes += row.length;
  for (const column of table.columns) bytes += column.length;
  return bytes;
}
