import { z } from 'zod';
import { waitForExpiry } from '../advice/advice.js';
import { S2SPError } from '../errors.js';
import { byteSize, positiveInteger } from '../options/option-kinds.js';
import { parseOptions } from '../options/parse-options.js';
import type {
  BodyStore,
  BodyStoreStats,
  PutOptions,
  StoredTable,
  TakenRows,
  TakeOptions,
  TakeRetry,
} from './body-store.js';
import { createBytePool } from './byte-pool.js';
import { encodeRows } from './encode-rows.js';
import { assertValidTtl, chargedEntryBytes, storeFullError, tooManyRowIds } from './store-rules.js';
import { selectRows } from './taken-rows.js';

/**
 * The options of {@link createMemoryStore}: their one rule, default and description (the store
 * section of `@s2sp/core`'s README is checked against it).
 */
export const MemoryStoreOptionsSchema = z.object({
  maxBytes: byteSize()
    .default(256 * 1024 * 1024)
    .describe(
      'Budget for live entries: their UTF-8 rows plus 1 KiB per entry and 4 bytes per row. A full store refuses puts with store_full; live entries are never evicted. Buffers of redeemed tables kept for reuse fit in what live entries leave.',
    ),
  maxEntries: positiveInteger().default(100_000).describe('Most live entries.'),
} satisfies Record<keyof MemoryStoreOptions, z.ZodType>);

/** Options for {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * Budget for live entries, in bytes: their serialised rows (UTF-8) plus 1 KiB per entry and 4
   * bytes per row of bookkeeping ({@link chargedEntryBytes}). A `put` that would exceed it fails
   * with `store_full`; live entries are never evicted. The buffers of redeemed tables the store
   * keeps for reuse (see `TakenRows.release`) fit in what the live entries leave of it, and go
   * after 30 s without reuse. Default 256 MiB.
   */
  readonly maxBytes?: number;
  /** Maximum number of live entries. Default 100 000. */
  readonly maxEntries?: number;
}

interface Entry {
  readonly columns: readonly string[];
  /** Every row's UTF-8 JSON, joined by commas. */
  readonly joined: Uint8Array;
  /** `ends[i]` is where row `i` ends in `joined` (exclusive); it starts one comma after row `i-1`. */
  readonly ends: Uint32Array;
  readonly bytes: number;
  /** What it is charged against the budget: `bytes` plus overhead. */
  readonly charged: number;
  readonly expiresAt: number;
  readonly timer: ReturnType<typeof setTimeout>;
  /** Set once a take with `retry` has won: only a take with this key may repeat it. */
  readonly retryKey?: string;
}

/**
 * The rows of a repeatable take, in bytes of their own: the entry stays for repeats, and the
 * taker may change what it gets (the data plane does, for NDJSON).
 */
async function* copiedChunks(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) yield chunk.slice();
}

function repeatable(taken: TakenRows): TakenRows {
  return { ...taken, chunks: copiedChunks(taken.chunks) };
}

/**
 * The in-process body store, the default of `@s2sp/server`. Single use is atomic because `take`
 * reads and deletes in one synchronous step. Each entry has its own timer, so expired memory is
 * reclaimed even if nobody asks again (timers are `unref`ed and never keep a process alive).
 *
 * For several server replicas use a shared store such as `@s2sp/cache-redis`.
 *
 * @param options - byte and entry budgets
 * @throws S2SPError `invalid_config` for a budget that is not a positive whole number
 * @example
 * ```ts
 * const store = createMemoryStore({ maxBytes: 64 * 1024 * 1024 });
 * ```
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): BodyStore {
  const { maxBytes, maxEntries } = parseOptions(MemoryStoreOptionsSchema, options, {
    factory: 'createMemoryStore',
  });
  const entries = new Map<string, Entry>();
  let bytes = 0;
  let charged = 0;
  let rows = 0;
  let closed = false;
  // Buffers kept for reuse stay within the budget, with the live entries.
  const pool = createBytePool({ maxFreeBytes: () => maxBytes - charged });

  const remove = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    entries.delete(key);
    clearTimeout(entry.timer);
    bytes -= entry.bytes;
    charged -= entry.charged;
    rows -= entry.ends.length;
    return entry;
  };

  // An entry that goes without a take (expired, replaced) was never handed out: its bytes are
  // free. One a repeatable take won is not: the taker reads it by copies made as it goes.
  const drop = (key: string) => {
    const entry = remove(key);
    if (entry && entry.retryKey === undefined) pool.give(entry.joined);
  };

  const arm = (key: string, ms: number) => {
    const timer = setTimeout(() => drop(key), ms);
    // unref is Node/Bun/Deno only; in browsers there is no process to keep alive.
    (timer as { unref?: () => void }).unref?.();
    return timer;
  };

  // A take under PROTOCOL §7.10: the winner marks the entry instead of removing it, and it stays,
  // charged as before, for the grace window (never past its TTL); only takes with the winner's
  // key see it again, and a repeat changes nothing. All of it before the first await, like a
  // plain take.
  const takeRepeatable = (
    key: string,
    live: Entry | undefined,
    rowIds: readonly number[] | undefined,
    retry: TakeRetry | undefined,
  ): TakenRows | undefined => {
    if (!live || Date.now() >= live.expiresAt) return undefined;
    if (live.retryKey !== undefined) {
      if (retry?.key !== live.retryKey) return undefined;
      // The same key means the same request (the key digests it), so the same ids.
      if (rowIds && rowIds.length > live.ends.length) return undefined;
      return repeatable(selectRows(live, rowIds));
    }
    if (!retry) return undefined;
    assertValidTtl(retry.graceMs);
    if (rowIds && rowIds.length > live.ends.length)
      throw tooManyRowIds(rowIds.length, live.ends.length);
    clearTimeout(live.timer);
    // The window runs from this take and ends with the entry's TTL at the latest: a retry never
    // outlives the resource_url (a take at 4 s of a 5 s TTL was served again at 62 s).
    const expiresAt = Math.min(live.expiresAt, Date.now() + retry.graceMs);
    entries.set(key, {
      ...live,
      retryKey: retry.key,
      expiresAt,
      timer: arm(key, Math.max(0, expiresAt - Date.now())),
    });
    return repeatable(selectRows(live, rowIds));
  };

  return {
    async put(key: string, table: StoredTable, { ttlMs }: PutOptions): Promise<void> {
      if (closed) throw new S2SPError('invalid_config', 'This memory store has been closed.');
      assertValidTtl(ttlMs);
      drop(key);
      const { joined, ends } = encodeRows(table, { allocate: pool.allocate });
      let size = joined.byteLength;
      for (const column of table.columns) size += column.length;
      const cost = chargedEntryBytes(size, ends.length);
      if (entries.size >= maxEntries) {
        pool.give(joined);
        throw new S2SPError(
          'store_full',
          `The S2SP cache already holds ${entries.size} results (its limit). ${waitForExpiry('maxEntries')}`,
        );
      }
      if (charged + cost > maxBytes) {
        pool.give(joined);
        throw storeFullError(charged, maxBytes, cost);
      }
      const timer = arm(key, ttlMs);
      entries.set(key, {
        columns: table.columns,
        joined,
        ends,
        bytes: size,
        charged: cost,
        expiresAt: Date.now() + ttlMs,
        timer,
      });
      bytes += size;
      charged += cost;
      rows += ends.length;
    },

    async take(
      key: string,
      rowIds?: readonly number[],
      options?: TakeOptions,
    ): Promise<TakenRows | undefined> {
      // Read and delete happen before the first await: no other take can interleave.
      const live = entries.get(key);
      if (live?.retryKey !== undefined || options?.retry)
        return takeRepeatable(key, live, rowIds, options?.retry);
      if (live && rowIds && rowIds.length > live.ends.length && Date.now() < live.expiresAt)
        throw tooManyRowIds(rowIds.length, live.ends.length);
      const entry = remove(key);
      if (!entry) return undefined;
      if (Date.now() >= entry.expiresAt) {
        pool.give(entry.joined);
        return undefined;
      }
      // The entry is gone, so its bytes are the taker's (who may change them in place), until
      // the taker says it is done with them. A closed store keeps nothing for later.
      return selectRows(entry, rowIds, () => {
        if (!closed) pool.give(entry.joined);
      });
    },

    async stats(): Promise<BodyStoreStats> {
      return { entries: entries.size, rows, bytes };
    },

    async close(): Promise<void> {
      closed = true;
      for (const key of [...entries.keys()]) remove(key);
      pool.clear();
    },
  };
}
