import type { LogLevel } from '@s2sp/server';
import {
  configError,
  type EdgeEnvOptions,
  type Env,
  envNumber,
  envString,
  loadConsumerEnv,
  loadServerEnv,
} from '@s2sp/server/env';
import type { SlopOptions } from '@s2sp/server/slop';

/** The chart consumer's settings, from the environment and command line. */
export interface ChartConfig {
  readonly port: number;
  readonly host: string;
  readonly stdio: boolean;
  /** `--help` or `-h`: print usage and exit 0. */
  readonly help: boolean;
  readonly publicUrl: string | undefined;
  /** Origins (each with an optional path prefix) `draw_chart` may fetch from. */
  readonly allowedOrigins: string[] | undefined;
  /** Without an allow-list: public internet only (default) or anywhere. */
  readonly destinations: 'public' | 'any';
  /** Path prefixes allowed before `/s2sp/data/{token}` on any origin. */
  readonly pathPrefixes: string[] | undefined;
  /** Data-plane fetches at once, and renders at once. */
  readonly maxConcurrentFetches: number;
  /** `S2SP_FETCH_RETRIES`: retries of a data-plane fetch whose answer was lost (default 3). */
  readonly fetchRetries: number;
  readonly maxConcurrentRenders: number;
  readonly chartDir: string | undefined;
  readonly logLevel: LogLevel;
  readonly slop: SlopOptions | undefined;
  /** `S2SP_ALLOWED_HOSTS`, `S2SP_ALLOWED_BROWSER_ORIGINS`, `S2SP_AUTH_TOKENS`, `S2SP_BODY_TIMEOUT_MS`. */
  readonly edge: EdgeEnvOptions;
}

/** The command-line usage, for `--help`. */
export const USAGE = `Usage: s2sp-chart-consumer [--stdio] [--help]

The S2SP chart consumer: the draw_chart tool (MCP on Streamable HTTP at /mcp, or stdio) and
the chart pages at /charts.

Options:
  --stdio    serve MCP on standard input/output (chart pages stay on HTTP, PORT)
  --help     print this help

Environment:
  PORT (default 3002), HOST, S2SP_ALLOWED_ORIGINS (origins draw_chart may fetch from, e.g.
  http://127.0.0.1:3001), S2SP_CONSUMER_DESTINATIONS (public|any), S2SP_PATH_PREFIXES,
  S2SP_MAX_CONCURRENT_FETCHES, S2SP_FETCH_RETRIES, CHART_MAX_CONCURRENT_RENDERS, S2SP_PUBLIC_URL, CHART_DIR,
  LOG_LEVEL, SLOP, SLOP_BEARER_TOKENS, SLOP_REQUIRE_SCOPES, S2SP_ALLOWED_HOSTS,
  S2SP_ALLOWED_BROWSER_ORIGINS, S2SP_AUTH_TOKENS, S2SP_BODY_TIMEOUT_MS (see README.md).
`;

const FLAGS = new Set(['--stdio', '--help', '-h']);

/**
 * Reads the settings: the common ones of every S2SP server (`PORT`, default 3002, `HOST`,
 * `S2SP_PUBLIC_URL`, `LOG_LEVEL`, `SLOP`…; see `loadServerEnv`), plus `S2SP_ALLOWED_ORIGINS`
 * (comma-separated origins `draw_chart` may fetch from, each optionally with a path prefix),
 * `S2SP_CONSUMER_DESTINATIONS` (`public`, the default, or `any`), `S2SP_PATH_PREFIXES`,
 * `S2SP_MAX_CONCURRENT_FETCHES` (default 4), `S2SP_FETCH_RETRIES` (default 3), `CHART_MAX_CONCURRENT_RENDERS` (default 2),
 * `CHART_DIR`, `--stdio` and `--help`.
 *
 * @throws S2SPError `invalid_config` naming the variable when a value is invalid
 */
export function loadConfig(env: Env, argv: readonly string[]): ChartConfig {
  const unknownFlags = argv.filter((a) => !FLAGS.has(a));
  if (unknownFlags.length > 0)
    throw configError(unknownFlags[0] ?? '', 'unknown option. The options are --stdio and --help.');
  const { port, host, publicUrl, logLevel, slop, edge } = loadServerEnv(env, { port: 3002 });
  return {
    port,
    host,
    stdio: argv.includes('--stdio'),
    help: argv.includes('--help') || argv.includes('-h'),
    publicUrl,
    ...loadConsumerEnv(env),
    maxConcurrentRenders: envNumber(env, 'CHART_MAX_CONCURRENT_RENDERS', 2, {
      min: 1,
      max: 64,
      integer: true,
    }),
    chartDir: envString(env, 'CHART_DIR'),
    logLevel,
    slop,
    edge,
  };
}
