import { DEFAULT_TOKEN_BUDGET } from '@s2sp/server';

/**
 * Every size, count and time `query_tables` is bounded by. Each has an environment variable
 * (see config.ts) and a default here.
 */
export interface SqlLimits {
  /** Tables one call may load (`tables` entries plus the top-level one). */
  readonly maxTables: number;
  /** Rows one loaded table may have (`SQL_MAX_TABLE_ROWS`). */
  readonly maxTableRows: number;
  /** Columns one loaded table may have. */
  readonly maxTableColumns: number;
  /** Characters of the SQL text. */
  readonly maxSqlChars: number;
  /** Rows a result may show the model (`SQL_MAX_ROWS`); `max_rows` may ask for fewer. */
  readonly maxResultRows: number;
  /** Token budget of a result the model reads (`SQL_TOKEN_BUDGET`), estimated as core does. */
  readonly tokenBudget: number;
  /** Rows an `as_table` result may store (`SQL_MAX_TABLE_ROWS` too). */
  readonly maxStoredRows: number;
  /** How long one statement may run before the connection is interrupted (`SQL_TIMEOUT_MS`). */
  readonly timeoutMs: number;
  /**
   * Memory per query, in MiB (`SQL_MEMORY_LIMIT_MB`): DuckDB's `memory_limit`, and how far the
   * query's own process may grow past what it held with the tables loaded (see query-worker.ts).
   */
  readonly memoryLimitMb: number;
  /** DuckDB's `threads` per query (`SQL_THREADS`). */
  readonly threads: number;
  /** Queries running at once (`SQL_MAX_CONCURRENT_QUERIES`). */
  readonly maxConcurrentQueries: number;
  /**
   * Queries waiting for a slot, of all clients together (`SQL_MAX_WAITING_QUERIES`). A freed
   * slot goes to the waiting clients in turn, and when every place is taken a client with fewer
   * waiting than the one holding the most takes that one's newest place: a full queue is refused
   * to the client that fills it, not to the next one. A waiting query holds its request (up to
   * the edge's 4 MiB), nothing fetched yet.
   */
  readonly maxWaitingQueries: number;
  /**
   * Queries one client may have running at once (`SQL_MAX_QUERIES_PER_CLIENT`); 2 more of its
   * own may wait, beyond that it gets `unavailable`. A client is told apart as the resource
   * servers' quotas tell it (`clientKey`: the authenticated client, else the socket address).
   */
  readonly maxQueriesPerClient: number;
  /**
   * Bytes of `as_table` answers one client may keep stored until they are redeemed or expire
   * (`SQL_MAX_BYTES_PER_CLIENT`), the resource servers' `maxBytesPerClient`.
   */
  readonly maxStoredBytesPerClient: number;
}

/** The defaults of {@link SqlLimits}. */
export const DEFAULT_SQL_LIMITS: SqlLimits = Object.freeze({
  maxTables: 8,
  maxTableRows: 200_000,
  maxTableColumns: 256,
  maxSqlChars: 20_000,
  maxResultRows: 200,
  tokenBudget: DEFAULT_TOKEN_BUDGET,
  maxStoredRows: 200_000,
  timeoutMs: 10_000,
  memoryLimitMb: 256,
  threads: 2,
  maxConcurrentQueries: 2,
  maxWaitingQueries: 16,
  maxQueriesPerClient: 1,
  maxStoredBytesPerClient: 32 * 1024 * 1024,
});
