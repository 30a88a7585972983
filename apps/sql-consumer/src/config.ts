import type { LogLevel } from '@s2sp/server';
import {
  configError,
  type EdgeEnvOptions,
  type Env,
  envNumber,
  loadConsumerEnv,
  loadServerEnv,
} from '@s2sp/server/env';
import type { SlopOptions } from '@s2sp/server/slop';
import { DEFAULT_SQL_LIMITS, type SqlLimits } from './sql-limits.js';

/** The SQL consumer's settings, from the environment and command line. */
export interface SqlConfig {
  readonly port: number;
  readonly host: string;
  readonly stdio: boolean;
  /** `--help` or `-h`: print usage and exit 0. */
  readonly help: boolean;
  readonly publicUrl: string | undefined;
  /** Origins (each with an optional path prefix) `query_tables` may fetch from. */
  readonly allowedOrigins: string[] | undefined;
  /** Without an allow-list: public internet only (default) or anywhere. */
  readonly destinations: 'public' | 'any';
  /** Path prefixes allowed before `/s2sp/data/{token}` on any origin. */
  readonly pathPrefixes: string[] | undefined;
  /** Data-plane fetches at once. */
  readonly maxConcurrentFetches: number;
  /** `S2SP_FETCH_RETRIES`: retries of a data-plane fetch whose answer was lost (default 3). */
  readonly fetchRetries: number;
  /** The query limits (`SQL_*`). */
  readonly limits: SqlLimits;
  readonly logLevel: LogLevel;
  readonly slop: SlopOptions | undefined;
  /** `S2SP_ALLOWED_HOSTS`, `S2SP_ALLOWED_BROWSER_ORIGINS`, `S2SP_AUTH_TOKENS`, `S2SP_BODY_TIMEOUT_MS`. */
  readonly edge: EdgeEnvOptions;
}

/** The command-line usage, for `--help`. */
export const USAGE = `Usage: s2sp-sql-consumer [--stdio] [--help]

The S2SP SQL consumer: the query_tables tool (MCP on Streamable HTTP at /mcp, or stdio) runs
SQL in a locked-down in-memory DuckDB over tables it fetches from resource_urls; with as_table
its answer is a new S2SP table on this server's data plane.

Options:
  --stdio    serve MCP on standard input/output (the data plane stays on HTTP, PORT)
  --help     print this help

Environment:
  PORT (default 3003), HOST, S2SP_ALLOWED_ORIGINS (origins query_tables may fetch from, e.g.
  http://127.0.0.1:3001), S2SP_CONSUMER_DESTINATIONS (public|any), S2SP_PATH_PREFIXES,
  S2SP_MAX_CONCURRENT_FETCHES, S2SP_FETCH_RETRIES, S2SP_PUBLIC_URL, LOG_LEVEL, SQL_MAX_ROWS, SQL_TOKEN_BUDGET,
  SQL_MAX_TABLE_ROWS, SQL_TIMEOUT_MS, SQL_MEMORY_LIMIT_MB, SQL_THREADS,
  SQL_MAX_CONCURRENT_QUERIES, SQL_MAX_QUERIES_PER_CLIENT, SQL_MAX_BYTES_PER_CLIENT, SLOP,
  SLOP_BEARER_TOKENS, SLOP_REQUIRE_SCOPES, S2SP_ALLOWED_HOSTS,
  S2SP_ALLOWED_BROWSER_ORIGINS, S2SP_AUTH_TOKENS, S2SP_BODY_TIMEOUT_MS (see README.md).
`;

const FLAGS = new Set(['--stdio', '--help', '-h']);

function limitsOf(env: Env): SqlLimits {
  const d = DEFAULT_SQL_LIMITS;
  const whole = (name: string, fallback: number, min: number, max: number) =>
    envNumber(env, name, fallback, { min, max, integer: true });
  const maxTableRows = whole('SQL_MAX_TABLE_ROWS', d.maxTableRows, 1, 10_000_000);
  return {
    ...d,
    maxTableRows,
    maxStoredRows: maxTableRows,
    maxResultRows: whole('SQL_MAX_ROWS', d.maxResultRows, 1, 10_000),
    tokenBudget: whole('SQL_TOKEN_BUDGET', d.tokenBudget, 200, 100_000),
    timeoutMs: whole('SQL_TIMEOUT_MS', d.timeoutMs, 10, 600_000),
    memoryLimitMb: whole('SQL_MEMORY_LIMIT_MB', d.memoryLimitMb, 16, 65_536),
    threads: whole('SQL_THREADS', d.threads, 1, 64),
    maxConcurrentQueries: whole('SQL_MAX_CONCURRENT_QUERIES', d.maxConcurrentQueries, 1, 64),
    maxQueriesPerClient: whole('SQL_MAX_QUERIES_PER_CLIENT', d.maxQueriesPerClient, 1, 64),
    maxStoredBytesPerClient: whole(
      'SQL_MAX_BYTES_PER_CLIENT',
      d.maxStoredBytesPerClient,
      1024,
      Number.MAX_SAFE_INTEGER,
    ),
  };
}

/**
 * Reads the settings: the common ones of every S2SP server (`PORT`, default 3003, `HOST`,
 * `S2SP_PUBLIC_URL`, `LOG_LEVEL`, `SLOP`…; see `loadServerEnv`), the consumer fetch settings as
 * chart-consumer reads them (`S2SP_ALLOWED_ORIGINS`, `S2SP_CONSUMER_DESTINATIONS`,
 * `S2SP_PATH_PREFIXES`, `S2SP_MAX_CONCURRENT_FETCHES`, default 4; `S2SP_FETCH_RETRIES`, default 3), the query limits (`SQL_*`,
 * see {@link SqlLimits}), `--stdio` and `--help`.
 *
 * @throws S2SPError `invalid_config` naming the variable when a value is invalid
 */
export function loadConfig(env: Env, argv: readonly string[]): SqlConfig {
  const unknownFlags = argv.filter((a) => !FLAGS.has(a));
  if (unknownFlags.length > 0)
    throw configError(unknownFlags[0] ?? '', 'unknown option. The options are --stdio and --help.');
  const { port, host, publicUrl, logLevel, slop, edge } = loadServerEnv(env, { port: 3003 });
  return {
    port,
    host,
    stdio: argv.includes('--stdio'),
    help: argv.includes('--help') || argv.includes('-h'),
    publicUrl,
    ...loadConsumerEnv(env),
    limits: limitsOf(env),
    logLevel,
    slop,
    edge,
  };
}
