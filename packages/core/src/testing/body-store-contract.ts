import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { S2SPError } from '../errors.js';
import type { BodyStore } from '../store/body-store.js';
import { generateToken, tokenStorageKey } from '../token.js';
import { makeStoredTable } from './make-stored-table.js';
import { readTaken } from './read-taken.js';

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
  /**
   * Whether the store implements repeatable takes (`TakeOptions.retry`, PROTOCOL §7.10). Default
   * true: the built-in stores do. A store that ignores the option passes `false`; the suite then
   * checks that a take with it is still single use.
   */
  readonly repeatableTakes?: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const encoder = new TextEncoder();
const utf8Length = (text: string) => encoder.encode(text).byteLength;

/** Where each of `rows` ends when they are joined by commas (as `TakenRows.ends` says). */
function rowEnds(rows: readonly string[]): number[] {
  let end = -1;
  return rows.map((row) => {
    end += 1 + utf8Length(row);
    return end;
  });
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

    it('returns every row, byte for byte, with the columns, table size, length and row ends', async () => {
      const key = await freshKey();
      const table = makeStoredTable(5);
      await store.put(key, table, { ttlMs: 60_000 });
      const taken = await store.take(key);
      expect(taken && [...taken.ends]).toEqual(rowEnds(table.rows));
      const read = await readTaken(taken);
      expect(read?.columns).toEqual(['name', 'payload']);
      expect(read?.tableRows).toBe(5);
      expect(read?.missing).toEqual([]);
      expect(read?.rows).toEqual(table.rows);
      expect(read?.text).toBe(table.rows.join(','));
      expect(read?.byteLength).toBe(utf8Length(table.rows.join(',')));
    });

    it('serves later entries intact after a take’s bytes are released (twice, even)', async () => {
      const rows = (fill: string) =>
        Array.from({ length: 80 }, (_, i) => JSON.stringify({ _row_id: i, v: fill.repeat(1024) }));
      const first = await freshKey();
      await store.put(first, { columns: ['v'], rows: rows('a') }, { ttlMs: 60_000 });
      const taken = await store.take(first);
      expect((await readTaken(taken))?.rows).toEqual(rows('a'));
      taken?.release?.();
      taken?.release?.();
      const keys = [await freshKey(), await freshKey()];
      for (const [i, key] of keys.entries())
        await store.put(key, { columns: ['v'], rows: rows(String(i)) }, { ttlMs: 60_000 });
      for (const [i, key] of keys.entries())
        expect((await readTaken(await store.take(key)))?.rows).toEqual(rows(String(i)));
    });

    it('returns only the requested rows, in ascending order, and lists the ids the table lacks', async () => {
      const key = await freshKey();
      const table = makeStoredTable(10);
      await store.put(key, table, { ttlMs: 60_000 });
      const taken = await store.take(key, [0, 2, 7, 42, 100]);
      const selected = [table.rows[0], table.rows[2], table.rows[7]] as string[];
      expect(taken && [...taken.ends]).toEqual(rowEnds(selected));
      const read = await readTaken(taken);
      expect(read?.tableRows).toBe(10);
      expect(read?.rows).toEqual(selected);
      expect(read?.missing).toEqual([42, 100]);
      expect(read?.byteLength).toBe(utf8Length(selected.join(',')));
    });

    it('returns runs of consecutive rows and scattered rows alike', async () => {
      const key = await freshKey();
      const table = makeStoredTable(12);
      await store.put(key, table, { ttlMs: 60_000 });
      const ids = [1, 2, 3, 6, 9, 10, 11];
      const read = await readTaken(await store.take(key, ids));
      expect(read?.rows).toEqual(ids.map((id) => table.rows[id]));
      expect(read?.missing).toEqual([]);
    });

    it('returns no rows, only missing ids, when the table has none of those asked for', async () => {
      const key = await freshKey();
      await store.put(key, makeStoredTable(10), { ttlMs: 60_000 });
      const taken = await store.take(key, [10, 11, 99]);
      expect(taken?.ends).toHaveLength(0);
      const read = await readTaken(taken);
      expect(read?.tableRows).toBe(10);
      expect(read?.rows).toEqual([]);
      expect(read?.missing).toEqual([10, 11, 99]);
      expect(read?.byteLength).toBe(0);
    });

    it('refuses more row ids than the table has rows with invalid_request, leaving the entry', async () => {
      const key = await freshKey();
      const table = makeStoredTable(3);
      await store.put(key, table, { ttlMs: 60_000 });
      const refused = await store.take(key, [0, 1, 2, 3]).catch((e: unknown) => e);
      expect(S2SPError.isInstance(refused) && refused.code).toBe('invalid_request');
      const read = await readTaken(await store.take(key, [2, 9]));
      expect(read?.rows).toEqual([table.rows[2]]);
      expect(read?.missing).toEqual([9]);
    });

    it('stores and returns an empty table', async () => {
      const key = await freshKey();
      await store.put(key, { columns: [], rows: [] }, { ttlMs: 60_000 });
      const read = await readTaken(await store.take(key));
      expect(read?.columns).toEqual([]);
      expect(read?.tableRows).toBe(0);
      expect(read?.rows).toEqual([]);
      expect(read?.byteLength).toBe(0);
    });

    it('is single use: a second take gets nothing, whichever rows the first asked for', async () => {
      const key = await freshKey();
      const table = makeStoredTable(3);
      await store.put(key, table, { ttlMs: 60_000 });
      expect((await readTaken(await store.take(key, [1])))?.rows).toEqual([table.rows[1]]);
      expect(await store.take(key)).toBeUndefined();
      expect(await store.take(key, [0])).toBeUndefined();
    });

    it('is used up by the take itself, even when its chunks are abandoned unread', async () => {
      const key = await freshKey();
      await store.put(key, makeStoredTable(4), { ttlMs: 60_000 });
      const taken = await store.take(key);
      expect(taken?.tableRows).toBe(4);
      await taken?.chunks[Symbol.asyncIterator]().return?.();
      expect(await store.take(key)).toBeUndefined();
      expect((await store.stats()).entries).toBe(0);
    });

    it('hands over bytes the taker may change without touching another entry', async () => {
      const keys = [await freshKey(), await freshKey(), await freshKey()];
      const table = makeStoredTable(6);
      for (const key of keys) await store.put(key, table, { ttlMs: 60_000 });
      // The data plane rewrites commas in place (NDJSON); here every byte is overwritten.
      for (const [key, rowIds] of [
        [keys[0], [1, 2]],
        [keys[1], undefined],
      ] as const) {
        const taken = await store.take(key as string, rowIds);
        for await (const chunk of taken?.chunks ?? []) chunk.fill(0x20);
      }
      expect((await readTaken(await store.take(keys[2] as string)))?.rows).toEqual(table.rows);
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
      expect(takenB?.rows).toEqual(makeStoredTable(3, 'b').rows);
      expect(takenA?.rows).toEqual(makeStoredTable(2, 'a').rows);
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

    const retry = (key: string, graceMs = 60_000) => ({ retry: { key, graceMs } });
    if (options.repeatableTakes === false)
      it('stays single use for a take with a retry key, which it does not implement', async () => {
        const key = await freshKey();
        await store.put(key, makeStoredTable(3), { ttlMs: 60_000 });
        expect((await store.take(key, [1], retry('k1')))?.tableRows).toBe(3);
        expect(await store.take(key, [1], retry('k1'))).toBeUndefined();
      });
    else
      describe('repeatable takes (PROTOCOL §7.10)', () => {
        it('gives the same rows again to a take with the same retry key, and nothing to any other take', async () => {
          const key = await freshKey();
          const table = makeStoredTable(6);
          await store.put(key, table, { ttlMs: 60_000 });
          const selected = [table.rows[1], table.rows[4]];
          const first = await store.take(key, [1, 4], retry('k1'));
          // The taker may change its bytes (NDJSON does, in place); a repeat is not affected.
          for await (const chunk of first?.chunks ?? []) chunk.fill(0x20);
          expect((await readTaken(await store.take(key, [1, 4], retry('k1'))))?.rows).toEqual(
            selected,
          );
          expect(await store.take(key, [1, 4], retry('k2'))).toBeUndefined();
          expect(await store.take(key, [1, 4])).toBeUndefined();
          expect(await store.take(key)).toBeUndefined();
          // Takes that were refused leave the repeat possible.
          const again = await readTaken(await store.take(key, [1, 4], retry('k1')));
          expect(again?.rows).toEqual(selected);
          expect(again?.tableRows).toBe(6);
        });

        it('repeats a whole-table take byte for byte', async () => {
          const key = await freshKey();
          const table = makeStoredTable(5);
          await store.put(key, table, { ttlMs: 60_000 });
          for (let i = 0; i < 3; i++) {
            const read = await readTaken(await store.take(key, undefined, retry('whole')));
            expect(read?.rows).toEqual(table.rows);
            expect(read?.missing).toEqual([]);
          }
        });

        it('gives no repeat to a take that was not itself made with a retry key', async () => {
          const key = await freshKey();
          await store.put(key, makeStoredTable(3), { ttlMs: 60_000 });
          expect((await store.take(key))?.tableRows).toBe(3);
          expect(await store.take(key, undefined, retry('late'))).toBeUndefined();
          expect((await store.stats()).entries).toBe(0);
        });

        it('gives the entry to exactly one of 50 concurrent takes with different keys, and repeats only for it', async () => {
          const key = await freshKey();
          await store.put(key, makeStoredTable(20), { ttlMs: 60_000 });
          const results = await Promise.all(
            Array.from({ length: 50 }, async (_, i) => ({
              i,
              read: await readTaken(await store.take(key, [1, 2], retry(`key-${i}`))),
            })),
          );
          const winners = results.filter((r) => r.read !== undefined);
          expect(winners).toHaveLength(1);
          const winner = (winners[0] as { i: number }).i;
          for (let i = 0; i < 50; i++) {
            const read = await readTaken(await store.take(key, [1, 2], retry(`key-${i}`)));
            expect(read?.rows.length).toBe(i === winner ? 2 : undefined);
          }
        });

        it('keeps and counts the entry for the grace window only, then reclaims it without any request', async () => {
          const key = await freshKey();
          await store.put(key, makeStoredTable(4), { ttlMs: 60_000 });
          expect((await store.take(key, undefined, retry('g', shortTtlMs)))?.tableRows).toBe(4);
          expect((await store.stats()).entries).toBe(1);
          expect((await store.stats()).rows).toBe(4);
          await sleep(shortTtlMs + reclaimWithinMs);
          expect(await store.stats()).toEqual({ entries: 0, rows: 0, bytes: 0 });
          expect(await store.take(key, undefined, retry('g', shortTtlMs))).toBeUndefined();
        });

        it("ends the grace window with the entry's TTL at the latest", async () => {
          // A take before the TTL: a repeat is served until the TTL, not a grace later. The take
          // comes a quarter into the TTL, so that a loaded machine's late timer does not miss it.
          const key = await freshKey();
          await store.put(key, makeStoredTable(3), { ttlMs: shortTtlMs * 4 });
          await sleep(shortTtlMs);
          expect((await store.take(key, undefined, retry('late', 60_000)))?.tableRows).toBe(3);
          expect(
            (await readTaken(await store.take(key, undefined, retry('late', 60_000))))?.rows,
          ).toHaveLength(3);
          await sleep(shortTtlMs * 3 + reclaimWithinMs);
          expect(await store.take(key, undefined, retry('late', 60_000))).toBeUndefined();
          expect(await store.stats()).toEqual({ entries: 0, rows: 0, bytes: 0 });
        });

        it('does not extend the window with a repeat', async () => {
          const key = await freshKey();
          // The repeat comes halfway through the window (room for a late timer on either side);
          // the check comes after the window plus the reclaim time, before a window restarted by
          // the repeat would end.
          const graceMs = Math.max(shortTtlMs * 8, reclaimWithinMs * 3);
          await store.put(key, makeStoredTable(2), { ttlMs: 60_000 });
          expect((await store.take(key, undefined, retry('r', graceMs)))?.tableRows).toBe(2);
          await sleep(graceMs / 2);
          expect((await store.take(key, undefined, retry('r', graceMs)))?.tableRows).toBe(2);
          await sleep(graceMs / 2 + reclaimWithinMs);
          expect(await store.take(key, undefined, retry('r', graceMs))).toBeUndefined();
          expect(await store.stats()).toEqual({ entries: 0, rows: 0, bytes: 0 });
        });

        it('still refuses more row ids than the table has rows, leaving the entry', async () => {
          const key = await freshKey();
          await store.put(key, makeStoredTable(2), { ttlMs: 60_000 });
          const refused = await store.take(key, [0, 1, 2], retry('r')).catch((e: unknown) => e);
          expect(S2SPError.isInstance(refused) && refused.code).toBe('invalid_request');
          expect((await readTaken(await store.take(key, [1])))?.rows).toHaveLength(1);
        });
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

      if (options.repeatableTakes !== false)
        it("charges a repeatable take's entry no longer than its TTL, however often it is repeated", async () => {
          // Room for one 6 KB entry at a time: the next fits only once the first is uncharged.
          const bounded = await makeBounded(10_000);
          const big = makeStoredTable(3, 'x'.repeat(2000));
          try {
            const first = await freshKey();
            await bounded.put(first, big, { ttlMs: shortTtlMs * 4 });
            const retry60 = { retry: { key: 'k', graceMs: 60_000 } };
            for (let i = 0; i < 3; i++) {
              expect((await bounded.take(first, undefined, retry60))?.tableRows).toBe(3);
              await sleep(shortTtlMs / 2);
            }
            await sleep(shortTtlMs * 3 + reclaimWithinMs);
            await bounded.put(await freshKey(), big, { ttlMs: 60_000 });
          } finally {
            await bounded.close();
          }
        });
    }
  });
}
