/**
 * Test helpers for S2SP implementations, published as `@s2sp/core/testing`. Requires `vitest`.
 *
 * @module
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { S2SPError } from '../errors.js';
import type { BodyStore, StoredTable, TakenRows } from '../store/body-store.js';
import { generateToken, tokenStorageKey } from '../token.js';

/** Options for {@link describeBodyStoreContract}. */
export interface BodyStoreContractOptions {
  /**
   * A TTL short enough to wait out in real time, in ms. Default 150. Stores whose expiry is
   * coarser (Redis rounds nothing, but a remote store may) can raise it.
   */
  readonly shortTtlMs?: number;
  /** How long after `shortTtlMs` an expired entry must be gone from `stats()`. Default 400. */
  readonly reclaimWithinMs?: number;
  /**
   * Make a store that accepts at most `maxBytes` of serialised rows, to test that a full store
   * refuses new entries without evicting live ones. Omit if the store has no budget.
   */
  readonly makeBoundedStore?: (maxBytes: number) => Promise<BodyStore>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Builds a stored table of `n` rows with two columns, for contract tests. */
export function makeStoredTable(n: number, label = 'row'): StoredTable {
  const rows: string[] = [];
  for (let i = 0; i < n; i++)
    rows.push(
      JSON.stringify({ _row_id: i, name: `${label}-${i}`, payload: { i, tags: ['a', 'ß', '😀'] } }),
    );
  return { columns: ['name', 'payload'], rows };
}

const decoder = new TextDecoder();

/**
 * The rows a take returned, as JSON text per slot (`undefined` for missing ids), whichever form
 * the store used (strings, bytes, or all rows `joined`).
 */
export function takenRowTexts(taken: TakenRows): (string | undefined)[] | { joined: string } {
  if (taken.joined) return { joined: decoder.decode(taken.joined) };
  if (taken.chunks && !taken.rows) {
    if (!Array.isArray(taken.chunks))
      throw new TypeError(
        'takenRowTexts needs the chunks in memory: pass the take through readTaken',
      );
    // A streaming decoder of its own: a chunk may end inside a multi-byte character.
    const streaming = new TextDecoder();
    let text = '';
    for (const chunk of taken.chunks as readonly Uint8Array[])
      text += streaming.decode(chunk, { stream: true });
    return { joined: text + streaming.decode() };
  }
  return (taken.rows ?? []).map((row) =>
    row === undefined || typeof row === 'string' ? row : decoder.decode(row),
  );
}

/**
 * A take with its streamed chunks (an async iterable) read into memory, so the other helpers can
 * look at it. Consumes the iterable.
 */
export async function readTaken(taken: TakenRows | undefined): Promise<TakenRows | undefined> {
  if (!taken?.chunks || Array.isArray(taken.chunks)) return taken;
  const chunks: Uint8Array[] = [];
  for await (const chunk of taken.chunks as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return { ...taken, chunks };
}

/** All rows of a take as one string, rows joined by commas (for whole-table comparisons). */
export function allRowsText(taken: TakenRows): string {
  const texts = takenRowTexts(taken);
  return Array.isArray(texts) ? texts.join(',') : texts.joined;
}

async function freshKey(): Promise<string> {
  return tokenStorageKey(generateToken());
}

/**
 * Registers the contract every {@link BodyStore} must pass: put/take round trips, atomic single
 * use under concurrency, row selection, TTL expiry with memory reclaimed without traffic, stats
 * and budgets. The memory store and the Redis store run it unchanged; run it against your own
 * store too.
 *
 * @param name - suite name
 * @param makeStore - creates a fresh, empty store for each test
 * @param options - timing and budget knobs
 * @example
 * ```ts
 * import { describeBodyStoreContract } from '@s2sp/core/testing';
 * describeBodyStoreContract('my store', async () => createMyStore());
 * ```
 */
export function describeBodyStoreContract(
  name: string,
  makeStore: () => Promise<BodyStore>,
  options: BodyStoreContractOptions = {},
): void {
  const shortTtlMs = options.shortTtlMs ?? 150;
  const reclaimWithinMs = options.reclaimWithinMs ?? 400;

  describe(`BodyStore contract: ${name}`, () => {
    let store: BodyStore;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    it('returns every row, byte for byte, with the columns and table size', async () => {
      const key = await freshKey();
      const table = makeStoredTable(5);
      await store.put(key, table, { ttlMs: 60_000 });
      const taken = await readTaken(await store.take(key));
      expect(taken?.columns).toEqual(['name', 'payload']);
      expect(taken?.tableRows).toBe(5);
      expect(taken && allRowsText(taken)).toBe(table.rows.join(','));
      // Optional members, when a store gives them, must describe the same bytes.
      const joined = new TextEncoder().encode(table.rows.join(','));
      if (taken?.byteLength !== undefined) expect(taken.byteLength).toBe(joined.byteLength);
      if (taken?.ends) {
        expect(taken.ends).toHaveLength(5);
        const cut = Array.from(taken.ends, (end, i) =>
          decoder.decode(joined.subarray(i === 0 ? 0 : (taken.ends?.[i - 1] as number) + 1, end)),
        );
        expect(cut).toEqual(table.rows);
      }
    });

    it('returns only the requested rows, in the order asked, with undefined for unknown ids', async () => {
      const key = await freshKey();
      const table = makeStoredTable(10);
      await store.put(key, table, { ttlMs: 60_000 });
      const taken = await readTaken(await store.take(key, [7, 2, 42, 0]));
      expect(taken?.tableRows).toBe(10);
      expect(taken && takenRowTexts(taken)).toEqual([
        table.rows[7],
        table.rows[2],
        undefined,
        table.rows[0],
      ]);
    });

    it('refuses more row ids than the table has rows with invalid_request, leaving the entry', async () => {
      const key = await freshKey();
      const table = makeStoredTable(3);
      await store.put(key, table, { ttlMs: 60_000 });
      const refused = await store.take(key, [0, 1, 2, 3]).catch((e: unknown) => e);
      expect(S2SPError.isInstance(refused) && refused.code).toBe('invalid_request');
      const taken = await readTaken(await store.take(key, [2, 9]));
      expect(taken && takenRowTexts(taken)).toEqual([table.rows[2], undefined]);
    });

    it('stores and returns an empty table', async () => {
      const key = await freshKey();
      await store.put(key, { columns: [], rows: [] }, { ttlMs: 60_000 });
      const taken = await readTaken(await store.take(key));
      expect(taken?.columns).toEqual([]);
      expect(taken?.tableRows).toBe(0);
      expect(taken && allRowsText(taken)).toBe('');
    });

    it('is single use: a second take gets nothing, whichever rows the first asked for', async () => {
      const key = await freshKey();
      await store.put(key, makeStoredTable(3), { ttlMs: 60_000 });
      expect((await store.take(key, [1]))?.rows).toHaveLength(1);
      expect(await store.take(key)).toBeUndefined();
      expect(await store.take(key, [0])).toBeUndefined();
    });

    it('gives the entry to exactly one of 50 concurrent takes', async () => {
      const key = await freshKey();
      await store.put(key, makeStoredTable(20), { ttlMs: 60_000 });
      const results = await Promise.all(
        Array.from({ length: 50 }, async (_, i) =>
          readTaken(await store.take(key, i % 2 ? [1, 2] : undefined)),
        ),
      );
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    });

    it('returns undefined for a key it never stored', async () => {
      expect(await store.take(await freshKey())).toBeUndefined();
    });

    it('keeps entries apart', async () => {
      const [a, b] = [await freshKey(), await freshKey()];
      await store.put(a, makeStoredTable(2, 'a'), { ttlMs: 60_000 });
      await store.put(b, makeStoredTable(3, 'b'), { ttlMs: 60_000 });
      const takenB = await readTaken(await store.take(b));
      const takenA = await readTaken(await store.take(a));
      expect(takenB && allRowsText(takenB)).toBe(makeStoredTable(3, 'b').rows.join(','));
      expect(takenA && allRowsText(takenA)).toBe(makeStoredTable(2, 'a').rows.join(','));
    });

    it('never serves an expired entry and reclaims it without any request', async () => {
      const expired = await freshKey();
      const reclaimed = await freshKey();
      await store.put(expired, makeStoredTable(3), { ttlMs: shortTtlMs });
      await store.put(reclaimed, makeStoredTable(4), { ttlMs: shortTtlMs });
      expect((await store.stats()).entries).toBe(2);
      await sleep(shortTtlMs + reclaimWithinMs);
      expect(await store.stats()).toEqual({ entries: 0, rows: 0, bytes: 0 });
      expect(await store.take(expired)).toBeUndefined();
    });

    it('serves an entry before its TTL runs out', async () => {
      const key = await freshKey();
      await store.put(key, makeStoredTable(1), { ttlMs: shortTtlMs * 4 });
      await sleep(shortTtlMs);
      expect((await store.take(key))?.tableRows).toBe(1);
    });

    it('counts entries, rows and bytes, and forgets taken entries', async () => {
      const key = await freshKey();
      const table = makeStoredTable(4);
      await store.put(key, table, { ttlMs: 60_000 });
      const stats = await store.stats();
      expect(stats.entries).toBe(1);
      expect(stats.rows).toBe(4);
      expect(stats.bytes).toBeGreaterThanOrEqual(table.rows.join('').length);
      expect(stats.bytes).toBeLessThan(4 * table.rows.join(',').length + 1000);
      await store.take(key);
      expect(await store.stats()).toEqual({ entries: 0, rows: 0, bytes: 0 });
    });

    it('rejects a TTL that is not a positive whole number of milliseconds', async () => {
      for (const ttlMs of [0, -5, 1.5, Number.NaN]) {
        const error = await store
          .put(await freshKey(), makeStoredTable(1), { ttlMs })
          .catch((e: unknown) => e);
        expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
      }
      expect((await store.stats()).entries).toBe(0);
    });

    if (options.makeBoundedStore) {
      const makeBounded = options.makeBoundedStore;
      it('refuses a new entry when full, with store_full, and keeps every live entry', async () => {
        // Room for a few entries, each charged its rows plus the per-entry overhead (1 KiB).
        const bounded = await makeBounded(10_000);
        try {
          const keys: string[] = [];
          let refused: unknown;
          for (let i = 0; i < 50 && refused === undefined; i++) {
            const key = await freshKey();
            await bounded.put(key, makeStoredTable(2, `r${i}`), { ttlMs: 60_000 }).then(
              () => keys.push(key),
              (e: unknown) => {
                refused = e;
              },
            );
          }
          expect(S2SPError.isInstance(refused) && refused.code).toBe('store_full');
          expect(keys.length).toBeGreaterThan(0);
          for (const key of keys) expect((await bounded.take(key))?.tableRows).toBe(2);
        } finally {
          await bounded.close();
        }
      });
    }
  });
}
