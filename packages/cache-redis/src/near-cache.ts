/**
 * The near cache: each replica keeps the tables it has just written to Redis, encoded, in its own
 * memory for their TTL, so that a redemption reaching the replica that minted the table (one
 * replica, sticky routing, or by chance) gets its rows without reading them from Redis. Redis
 * still decides who gets an entry: a take claims it there first (one small script, no rows
 * read), so single use holds across every replica whichever copy the rows come from.
 *
 * A local copy is only ever a shortcut. It is taken out of the cache before the claim is sent,
 * so no eviction or concurrent take can lose it while the claim is in flight; it is put back if
 * the claim failed without consuming the entry (Redis unreachable), and dropped when another
 * take won. A table larger than the cache, or one that no longer fits, is simply not kept: its
 * redemption reads Redis as before.
 *
 * @module
 */

import { chargedEntryBytes, type selectRows } from '@s2sp/core/store';

/**
 * A table kept near: its encoding, as `selectRows` cuts a take's answer from it, and when its
 * Redis entry expires.
 */
export type NearEntry = Parameters<typeof selectRows>[0] & {
  /** `Date.now()` after which the entry is dropped unused (its Redis entry has expired). */
  readonly expiresAt: number;
};

/** Tables this replica wrote, for their TTL, within a byte budget (see the module's comment). */
export interface NearCache {
  /**
   * Keeps a table, dropping the oldest ones it no longer has room for.
   * @returns whether it was kept (not when it is larger than the whole cache)
   */
  keep(key: string, entry: NearEntry): boolean;
  /** Takes a table out of the cache (`undefined` when it is not there or has expired). */
  remove(key: string): NearEntry | undefined;
  /**
   * Puts back a table {@link remove} took out; one that has expired meanwhile, or no longer fits,
   * goes to `onDrop` instead.
   */
  restore(key: string, entry: NearEntry): void;
  /** Bytes of the tables kept, charged as a store charges its entries. */
  readonly bytes: number;
  /** Drops every table and stops the sweep. */
  clear(): void;
}

/** Options of {@link createNearCache}. */
export interface NearCacheOptions {
  /** The budget; 0 keeps nothing. */
  readonly maxBytes: number;
  /**
   * Called with each table the cache lets go of unasked (made room for, expired, replaced or
   * cleared), whose bytes nothing else reads: the store gives them back to its pool.
   */
  readonly onDrop?: (entry: NearEntry) => void;
}

/** How often expired tables are swept out when no take or put comes by, in ms. */
const SWEEP_MS = 5_000;

function charged(entry: NearEntry): number {
  return chargedEntryBytes(entry.joined.byteLength, entry.ends.length);
}

/**
 * Creates a {@link NearCache} of at most `maxBytes` (each table charged its UTF-8 rows plus the
 * store's per-entry and per-row overhead). Tables are dropped oldest first: tables are redeemed
 * once, soon after they are written, so the oldest one is the least likely to be asked for.
 * Expired tables are swept every few seconds (on an `unref`ed timer, which never keeps the
 * process alive), so an idle replica gives their memory back without any request.
 */
export function createNearCache({ maxBytes, onDrop }: NearCacheOptions): NearCache {
  // Insertion order is age: Map iterates its keys in the order they were set.
  const entries = new Map<string, NearEntry>();
  let bytes = 0;
  let sweeper: ReturnType<typeof setInterval> | undefined;

  const forget = (key: string, entry: NearEntry) => {
    entries.delete(key);
    bytes -= charged(entry);
    if (entries.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  const drop = (key: string, entry: NearEntry) => {
    forget(key, entry);
    onDrop?.(entry);
  };
  const sweep = () => {
    const now = Date.now();
    for (const [key, entry] of entries) if (entry.expiresAt <= now) drop(key, entry);
  };
  const add = (key: string, entry: NearEntry) => {
    const cost = charged(entry);
    if (cost > maxBytes || entry.expiresAt <= Date.now()) return false;
    const old = entries.get(key);
    if (old) drop(key, old);
    for (const [oldest, kept] of entries) {
      if (bytes + cost <= maxBytes) break;
      drop(oldest, kept);
    }
    entries.set(key, entry);
    bytes += cost;
    if (!sweeper) {
      sweeper = setInterval(sweep, SWEEP_MS);
      sweeper.unref();
    }
    return true;
  };

  return {
    keep: add,
    remove(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= Date.now()) {
        drop(key, entry);
        return undefined;
      }
      forget(key, entry);
      return entry;
    },
    restore(key, entry) {
      if (!add(key, entry)) onDrop?.(entry);
    },
    get bytes() {
      return bytes;
    },
    clear() {
      for (const [key, entry] of entries) drop(key, entry);
    },
  };
}
