import type { LogLevel } from '@s2sp/server';
import { configError, type Env, envList, envString, loadServerEnv } from '@s2sp/server/env';
import type { SlopOptions } from '@s2sp/server/slop';

/** The chart consumer's settings, from the environment and command line. */
export interface ChartConfig {
  readonly port: number;
  readonly host: string;
  readonly stdio: boolean;
  /** `--help` or `-h`: print usage and exit 0. */
  readonly help: boolean;
  readonly publicUrl: string | undefined;
  readonly allowedOrigins: string[] | undefined;
  readonly chartDir: string | undefined;
  readonly logLevel: LogLevel;
  readonly slop: SlopOptions | undefined;
}

function origin(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  } catch {
    // reported below
  }
  throw configError(
    'S2SP_ALLOWED_ORIGINS',
    `"${value}" is not an http(s) origin such as http://127.0.0.1:3001.`,
  );
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
  http://127.0.0.1:3001), S2SP_PUBLIC_URL, CHART_DIR, LOG_LEVEL, SLOP, SLOP_BEARER_TOKENS,
  SLOP_REQUIRE_SCOPES (see README.md).
`;

const FLAGS = new Set(['--stdio', '--help', '-h']);

/**
 * Reads the settings: the common ones of every S2SP server (`PORT`, default 3002, `HOST`,
 * `S2SP_PUBLIC_URL`, `LOG_LEVEL`, `SLOP`…; see `loadServerEnv`), plus `S2SP_ALLOWED_ORIGINS`
 * (comma-separated origins `draw_chart` may fetch from), `CHART_DIR`, `--stdio` and `--help`.
 *
 * @throws S2SPError `invalid_config` naming the variable when a value is invalid
 */
export function loadConfig(env: Env, argv: readonly string[]): ChartConfig {
  const unknownFlags = argv.filter((a) => !FLAGS.has(a));
  if (unknownFlags.length > 0)
    throw configError(unknownFlags[0] ?? '', 'unknown option. The options are --stdio and --help.');
  const { port, host, publicUrl, logLevel, slop } = loadServerEnv(env, { port: 3002 });
  return {
    port,
    host,
    stdio: argv.includes('--stdio'),
    help: argv.includes('--help') || argv.includes('-h'),
    publicUrl,
    allowedOrigins: envList(env, 'S2SP_ALLOWED_ORIGINS')?.map(origin),
    chartDir: envString(env, 'CHART_DIR'),
    logLevel,
    slop,
  };
}
