/**
 * The body store: where async-mode tables wait for their single redemption. Implementations:
 * {@link createMemoryStore} here, `createRedisBodyStore` in `@s2sp/cache-redis`, or your own —
 * `@s2sp/core/testing` exports the contract suite every store must pass.
 *
 * @module
 */

/**
 * A cached table, serialised once at cache time. Stores keep the strings as they are, so the data
 * plane can answer without re-serialising and a store can hand out a few rows without reading
 * (or parsing) the rest.
 */
export interface StoredTable {
  /** All columns except `_row_id`, in first-seen order. */
  readonly columns: readonly string[];
  /** Row `i` as compact JSON with `"_row_id": i` as its first member. */
  readonly rows: readonly string[];
  /**
   * The rows' encoding ({@link encodeRows}'s layout), made without copying the rows, when the
   * table was built from JSON its caller already held (`@s2sp/server`'s `serializeTable` sets it
   * for rows handed over as bytes or as slices of a text). A store encodes with
   * `encodeRows(table)`, which calls it, once: it may hand over the caller's own buffer, after
   * which `rows` can no longer be read. Absent for a table of plain strings.
   *
   * @param allocate - where to write the bytes when they are copied (the store's reusable
   *   buffers, which it may hand out again once the table is redeemed: keep no reference to
   *   them); an encoding that hands over bytes it already holds ignores it
   */
  readonly encode?: (allocate?: (size: number) => Uint8Array) => {
    readonly joined: Uint8Array;
    readonly ends: Uint32Array;
  };
}

/**
 * What a successful {@link BodyStore.take} returns: the same shape from every store, for a whole
 * table and for selected rows alike, so a reader has one case to handle. The returned rows are
 * their UTF-8 JSON joined by commas — exactly the `body` array of a data-plane response without
 * its brackets — handed over in pieces, with where each row ends:
 *
 * - a store that keeps a table encoded hands its bytes over as they are (no copy, no
 *   serialising), and one that keeps it in blocks streams them as they are read, so a table of
 *   any size passes through without being held whole;
 * - `ends` lets a reader cut rows (say, one per line for NDJSON, in place) without parsing JSON.
 *
 * The taker owns the bytes and may change them (the data plane turns the commas into newlines in
 * place for NDJSON), so a store must not hand out bytes it still uses.
 */
export interface TakenRows {
  /** The table's columns (without `_row_id`), in first-seen order. */
  readonly columns: readonly string[];
  /** How many rows the whole table has (not only those returned). */
  readonly tableRows: number;
  /**
   * The requested ids the table has no row for, in ascending order; empty when all rows were
   * asked for.
   */
  readonly missing: readonly number[];
  /** Total length of `chunks` in bytes, known before they are read. */
  readonly byteLength: number;
  /**
   * Where each returned row ends (exclusive) in the concatenated `chunks`; its length is the
   * number of rows returned. Row `i` starts one byte (the comma) after row `i - 1` ends, the last
   * row ends at `byteLength`.
   */
  readonly ends: Uint32Array;
  /**
   * The returned rows' UTF-8 JSON (each with `"_row_id"` as its first member), in ascending
   * `_row_id` order, joined by commas, in consecutive pieces cut anywhere (even inside a
   * character). Consume it once, to the end or until its iterator's `return()`; a store may read
   * the pieces on demand (the Redis store does, for large tables), and then reading may fail,
   * with an `S2SPError` (`unavailable` when the backing service is down). The entry is used up
   * by the take either way.
   */
  readonly chunks: AsyncIterable<Uint8Array>;
  /**
   * Lets the store reuse the bytes of `chunks` for a later entry. Call it once nothing reads them
   * any more (the data plane calls it when its response has been written out), at most once, and
   * never for bytes still in use. Optional both ways: a store need not offer it, and a taker that
   * does not call it (one writing to a web `Response`, which never says when its bytes are sent)
   * leaves them to the garbage collector, which is always safe.
   */
  readonly release?: () => void;
}

/** Store-wide counters, for resources such as `weather://cache` and for tests. Never tokens. */
export interface BodyStoreStats {
  /** Live entries. */
  readonly entries: number;
  /** Rows across live entries. */
  readonly rows: number;
  /**
   * Size of the serialised rows of live entries: UTF-8 bytes where the store keeps bytes (the
   * memory store), JSON characters where counting bytes would cost a pass over the data (the
   * Redis store). The two agree for ASCII, which most JSON is.
   */
  readonly bytes: number;
}

/** Options for {@link BodyStore.put}. */
export interface PutOptions {
  /** Time to live in milliseconds; a positive integer. */
  readonly ttlMs: number;
}

/**
 * A take that may be repeated (PROTOCOL §7.10, retry-safe redemption): instead of deleting the
 * entry, the winning take keeps it for `graceMs` under `key`, and for that window a take with the
 * same `key` gets the same rows again, while every other take (another key, or none) gets
 * `undefined`, as for any used entry.
 */
export interface TakeRetry {
  /**
   * What a repeat must match: a digest of the consumer's `Idempotency-Key` and of its request
   * (rows, columns, format), 1 to 128 letters, digits or `_ . : -` (the data plane passes 64 hex
   * digits). The store compares it, nothing more.
   */
  readonly key: string;
  /**
   * How long the taken entry stays for repeats, in ms, from the first take, and never past the
   * entry's own TTL (a repeat extends neither). It counts against the store's budgets until
   * then, and no longer.
   */
  readonly graceMs: number;
}

/** Options for {@link BodyStore.take}. */
export interface TakeOptions {
  /**
   * Keep the entry for repeats of this take (see {@link TakeRetry}). A store without the
   * extension may ignore it; repeats then get `undefined`, as before.
   */
  readonly retry?: TakeRetry;
}

/**
 * Storage for async-mode bodies. Keys are SHA-256 hex digests of tokens (see
 * {@link tokenStorageKey}): a store never sees a live token.
 *
 * Every implementation must guarantee:
 * - `take` is atomic and single-use: of any number of concurrent calls for one key, across every
 *   process sharing the store, exactly one gets the entry; the entry is gone afterwards, whichever
 *   rows were asked for — except, with {@link TakeOptions.retry}, for repeats of that one take
 *   within its grace window;
 * - an expired entry is never returned, and its memory is reclaimed without any further request;
 * - `put` never evicts a live entry to make room: when full it throws an `S2SPError` with code
 *   `store_full`; when the backing service is down, code `unavailable`.
 */
export interface BodyStore {
  /**
   * Stores a table under `key` for `ttlMs` milliseconds.
   * @throws S2SPError `store_full`, `unavailable` or `invalid_config` (bad TTL)
   */
  put(key: string, table: StoredTable, options: PutOptions): Promise<void>;
  /**
   * Atomically removes the entry and returns the requested rows, or `undefined` when the key is
   * unknown, expired or already taken. See {@link TakenRows} for the one shape of the answer.
   * @param key - the storage key
   * @param rowIds - the row ids to return: distinct non-negative integers in ascending order (the
   *   data plane passes them so, deduplicated and sorted; a store may rely on it). Ids the table
   *   lacks are skipped and listed in `missing`. Omit for all rows.
   * @throws S2SPError `unavailable` when the backing service is down (the entry is then untouched)
   * @throws S2SPError `invalid_request` (the built-in stores; optional for others)
   *   when `rowIds` has more ids than the table has rows — the entry is then untouched, and a
   *   request cannot make the store do more work than the table is big (use {@link tooManyRowIds})
   * @param options - `retry`: keep the entry for repeats of this take (PROTOCOL §7.10). Of
   *   concurrent takes still exactly one wins; the others, and every later take without the same
   *   `retry.key`, get `undefined`. A repeat within `retry.graceMs` gets the same rows, in fresh
   *   bytes (the taker of the first answer may have changed its own).
   */
  take(
    key: string,
    rowIds?: readonly number[],
    options?: TakeOptions,
  ): Promise<TakenRows | undefined>;
  /** Current counters. */
  stats(): Promise<BodyStoreStats>;
  /** Releases timers and connections. The store must not be used afterwards. */
  close(): Promise<void>;
}
