import { milliseconds, positiveInteger } from '@s2sp/core/options';
import {
  type ConsumerEnv,
  type Env,
  loadConsumerEnv,
  loadEnv,
  loadServerEnv,
  readSwitches,
  type ServerEnv,
} from '@s2sp/server/env';
import { z } from 'zod';
import { DEFAULT_SQL_LIMITS, type SqlLimits } from './sql-limits.js';

const d = DEFAULT_SQL_LIMITS;

/** The query limits a deployment sets (`SQL_*`), each with its rule; see {@link SqlLimits}. */
const SqlSettingsSchema = z.object({
  maxTableRows: positiveInteger({ max: 10_000_000 })
    .default(d.maxTableRows)
    .meta({ env: 'SQL_MAX_TABLE_ROWS' }),
  maxResultRows: positiveInteger({ max: 10_000 })
    .default(d.maxResultRows)
    .meta({ env: 'SQL_MAX_ROWS' }),
  tokenBudget: positiveInteger({ min: 200, max: 100_000 })
    .default(d.tokenBudget)
    .meta({ env: 'SQL_TOKEN_BUDGET' }),
  timeoutMs: milliseconds({ min: 10, max: 600_000 })
    .default(d.timeoutMs)
    .meta({ env: 'SQL_TIMEOUT_MS' }),
  memoryLimitMb: positiveInteger({ min: 16, max: 65_536 })
    .default(d.memoryLimitMb)
    .meta({ env: 'SQL_MEMORY_LIMIT_MB' }),
  threads: positiveInteger({ max: 64 }).default(d.threads).meta({ env: 'SQL_THREADS' }),
  maxConcurrentQueries: positiveInteger({ max: 64 })
    .default(d.maxConcurrentQueries)
    .meta({ env: 'SQL_MAX_CONCURRENT_QUERIES' }),
  maxWaitingQueries: positiveInteger({ min: 0, max: 1024 })
    .default(d.maxWaitingQueries)
    .meta({ env: 'SQL_MAX_WAITING_QUERIES' }),
  maxQueriesPerClient: positiveInteger({ max: 64 })
    .default(d.maxQueriesPerClient)
    .meta({ env: 'SQL_MAX_QUERIES_PER_CLIENT' }),
  maxStoredBytesPerClient: positiveInteger({ min: 1024 })
    .default(d.maxStoredBytesPerClient)
    .meta({ env: 'SQL_MAX_BYTES_PER_CLIENT' }),
});

/**
 * The SQL consumer's settings: the server's (`loadServerEnv`), the consumer fetch settings
 * (`loadConsumerEnv`: origins `query_tables` may fetch from, destinations, path prefixes,
 * fetches at once, retries), the query limits and the command line's switches.
 */
export type SqlConfig = Pick<
  ServerEnv,
  'port' | 'host' | 'publicUrl' | 'logLevel' | 'slop' | 'edge' | 'misspelt'
> &
  ConsumerEnv & {
    /** `--stdio`: MCP on standard input and output. */
    readonly stdio: boolean;
    /** `--help` or `-h`: print usage and exit 0. */
    readonly help: boolean;
    /** The query limits (`SQL_*`). */
    readonly limits: SqlLimits;
  };

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
  SQL_MAX_CONCURRENT_QUERIES, SQL_MAX_WAITING_QUERIES, SQL_MAX_QUERIES_PER_CLIENT,
  SQL_MAX_BYTES_PER_CLIENT, SLOP,
  SLOP_BEARER_TOKENS, SLOP_REQUIRE_SCOPES, S2SP_ALLOWED_HOSTS,
  S2SP_ALLOWED_BROWSER_ORIGINS, S2SP_AUTH_TOKENS, S2SP_BODY_TIMEOUT_MS (see README.md).
`;

/**
 * Reads the settings: the common ones of every S2SP server (`PORT`, default 3003, `HOST`,
 * `S2SP_PUBLIC_URL`, `LOG_LEVEL`, `SLOP`…; see `loadServerEnv`), the consumer fetch settings
 * (see `loadConsumerEnv`), the query limits (`SQL_*`, see {@link SqlLimits}), `--stdio` and
 * `--help`.
 *
 * @throws S2SPError `invalid_config` naming the variable when a value is invalid
 */
export function loadConfig(env: Env, argv: readonly string[]): SqlConfig {
  const switches = readSwitches(argv, ['--stdio', '--help', '-h']);
  const { port, host, publicUrl, logLevel, slop, edge, misspelt } = loadServerEnv(env, {
    port: 3003,
    settings: [SqlSettingsSchema],
  });
  const own = loadEnv(SqlSettingsSchema, env);
  return {
    port,
    host,
    stdio: switches.has('--stdio'),
    help: switches.has('--help') || switches.has('-h'),
    publicUrl,
    ...loadConsumerEnv(env),
    // One row limit for what a table may load and what an answer may store.
    limits: { ...d, ...own, maxStoredRows: own.maxTableRows },
    logLevel,
    slop,
    edge,
    misspelt,
  };
}
