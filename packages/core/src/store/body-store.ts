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
}

/** What a successful {@link BodyStore.take} returns. */
export interface TakenRows {
  /** The table's columns (without `_row_id`). */
  readonly columns: readonly string[];
  /** How many rows the whole table had. */
  readonly tableRows: number;
  /**
   * Serialised rows, as JSON text or as its UTF-8 bytes. Without `rowIds`, every row in table
   * order. With `rowIds`, one slot per requested id in the order given: the row, or `undefined`
   * when the table has no such row. May be omitted when `joined` is given.
   */
  readonly rows?: ReadonlyArray<string | Uint8Array | undefined>;
  /**
   * Only when all rows were asked for: every row's UTF-8 JSON, in table order, joined by commas.
   * A store that keeps tables encoded hands this out without copying, so a whole-table
   * redemption costs no serialising at all.
   */
  readonly joined?: Uint8Array;
  /**
   * Only when all rows were asked for, instead of `joined`: the same bytes in consecutive pieces
   * (their concatenation is `joined`), as an array or as an async iterable read on demand. A store
   * that keeps a table in blocks (the Redis store) hands them out this way, so they are written as
   * they are — never copied into one buffer, and with an iterable never all in memory at once.
   * An iterable must be consumed once, to the end or until its iterator's `return()`; the taker
   * owns the bytes and may change them.
   */
  readonly chunks?: readonly Uint8Array[] | AsyncIterable<Uint8Array>;
  /** With `joined` or `chunks`: their total length in bytes (required with an iterable). */
  readonly byteLength?: number;
  /**
   * With `joined` or `chunks`: where each row ends (exclusive) in the joined bytes, so a reader
   * can cut rows (say, for NDJSON) without parsing JSON. Row `i` starts one byte (the comma)
   * after row `i - 1` ends.
   */
  readonly ends?: Uint32Array;
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
 * Storage for async-mode bodies. Keys are SHA-256 hex digests of tokens (see
 * {@link tokenStorageKey}): a store never sees a live token.
 *
 * Every implementation must guarantee:
 * - `take` is atomic and single-use: of any number of concurrent calls for one key, across every
 *   process sharing the store, exactly one gets the entry; the entry is gone afterwards, whichever
 *   rows were asked for;
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
   * unknown, expired or already taken.
   * @param key - the storage key
   * @param rowIds - row ids to return (non-negative integers, any order); omit for all rows
   * @throws S2SPError `unavailable` when the backing service is down (the entry is then untouched)
   * @throws S2SPError `invalid_request` (the built-in stores; optional for others)
   *   when `rowIds` has more ids than the table has rows — the entry is then untouched, and a
   *   request cannot make the store do more work than the table is big (use {@link tooManyRowIds})
   */
  take(key: string, rowIds?: readonly number[]): Promise<TakenRows | undefined>;
  /** Current counters. */
  stats(): Promise<BodyStoreStats>;
  /** Releases timers and connections. The store must not be used afterwards. */
  close(): Promise<void>;
}
