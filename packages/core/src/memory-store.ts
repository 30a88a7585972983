import type {
  BodyStore,
  BodyStoreStats,
  PutOptions,
  StoredTable,
  TakenRows,
} from './body-store.js';
import { S2SPError } from './errors.js';

/** Options for {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * Budget for the serialised rows of live entries, in JSON characters. A `put` that would exceed
   * it fails with `store_full`; live entries are never evicted. Default 256 MiB.
   */
  readonly maxBytes?: number;
  /** Maximum number of live entries. Default 100 000. */
  readonly maxEntries?: number;
}

interface Entry {
  readonly table: StoredTable;
  readonly bytes: number;
  readonly expiresAt: number;
  readonly timer: ReturnType<typeof setTimeout>;
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

/** Size of a stored table in JSON characters, as counted against store budgets. */
export function storedTableSize(table: StoredTable): number {
  let bytes = 0;
  for (const row of table.rows) bytes += row.length;
  for (const column of table.columns) bytes += column.length;
  return bytes;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new S2SPError(
      'invalid_config',
      `${name} must be a positive whole number, got ${String(value)}.`,
    );
  }
  return value;
}

/**
 * The in-process body store, the default of `@s2sp/server`. Single use is atomic because `take`
 * reads and deletes in one synchronous step. Each entry has its own timer, so expired memory is
 * reclaimed even if nobody asks again (timers are `unref`ed and never keep a process alive).
 *
 * For several server replicas use a shared store such as `@s2sp/cache-redis`.
 *
 * @param options - byte and entry budgets
 * @example
 * ```ts
 * const store = createMemoryStore({ maxBytes: 64 * 1024 * 1024 });
 * ```
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): BodyStore {
  const maxBytes = positive('maxBytes', options.maxBytes, 256 * 1024 * 1024);
  const maxEntries = positive('maxEntries', options.maxEntries, 100_000);
  const entries = new Map<string, Entry>();
  let bytes = 0;
  let rows = 0;
  let closed = false;

  const remove = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    entries.delete(key);
    clearTimeout(entry.timer);
    bytes -= entry.bytes;
    rows -= entry.table.rows.length;
    return entry;
  };

  return {
    async put(key: string, table: StoredTable, { ttlMs }: PutOptions): Promise<void> {
      if (closed) throw new S2SPError('invalid_config', 'This memory store has been closed.');
      assertValidTtl(ttlMs);
      remove(key);
      const size = storedTableSize(table);
      if (entries.size >= maxEntries) {
        throw new S2SPError(
          'store_full',
          `The S2SP cache already holds ${entries.size} results (its limit). Retry in a few minutes when older results expire, or use mode="sync"; the operator can raise maxEntries.`,
        );
      }
      if (bytes + size > maxBytes) {
        const hint =
          size > maxBytes
            ? 'This one result is larger than the whole cache: ask for fewer rows, or the operator can raise the limit.'
            : 'Retry in a few minutes when older results expire, or ask for fewer rows; the operator can raise the limit.';
        throw new S2SPError(
          'store_full',
          `The S2SP cache is full (${bytes} of ${maxBytes} bytes in use, this result needs ${size}). ${hint}`,
        );
      }
      const timer = setTimeout(() => remove(key), ttlMs);
      // unref is Node/Bun/Deno only; in browsers there is no process to keep alive.
      (timer as { unref?: () => void }).unref?.();
      entries.set(key, { table, bytes: size, expiresAt: Date.now() + ttlMs, timer });
      bytes += size;
      rows += table.rows.length;
    },

    async take(key: string, rowIds?: readonly number[]): Promise<TakenRows | undefined> {
      // Read and delete happen before the first await: no other take can interleave.
      const entry = remove(key);
      if (!entry || Date.now() >= entry.expiresAt) return undefined;
      const all = entry.table.rows;
      return {
        columns: entry.table.columns,
        tableRows: all.length,
        rows: rowIds ? rowIds.map((id) => all[id]) : all,
      };
    },

    async stats(): Promise<BodyStoreStats> {
      return { entries: entries.size, rows, bytes };
    },

    async close(): Promise<void> {
      closed = true;
      for (const key of [...entries.keys()]) remove(key);
    },
  };
}
