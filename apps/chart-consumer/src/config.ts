import type { LogLevel } from '@s2sp/server';
import {
  configError,
  type Env,
  envList,
  envString,
  loadServerEnv,
  type ServerEdgeOptions,
} from '@s2sp/server/env';
import type { SlopOptions } from '@s2sp/server/slop';

/** The chart consumer's settings, from the environment and command line. */
export interface ChartConfig {
  readonly port: number;
  readonly host: string;
  readonly stdio: boolean;
  readonly publicUrl: string | undefined;
  readonly allowedOrigins: string[] | undefined;
  readonly chartDir: string | undefined;
  readonly logLevel: LogLevel;
  readonly slop: SlopOptions | undefined;
  /** `S2SP_ALLOWED_HOSTS`, `S2SP_ALLOWED_BROWSER_ORIGINS`, `S2SP_AUTH_TOKENS`, `S2SP_BODY_TIMEOUT_MS`. */
  readonly edge: ServerEdgeOptions;
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

/**
 * Reads the settings: the common ones of every S2SP server (`PORT`, default 3002, `HOST`,
 * `S2SP_PUBLIC_URL`, `LOG_LEVEL`, `SLOP`…; see `loadServerEnv`), plus `S2SP_ALLOWED_ORIGINS`
 * (comma-separated origins `draw_chart` may fetch from), `CHART_DIR`, and `--stdio`.
 *
 * @throws S2SPError `invalid_config` naming the variable when a value is invalid
 */
export function loadConfig(env: Env, argv: readonly string[]): ChartConfig {
  const unknownFlags = argv.filter((a) => a !== '--stdio');
  if (unknownFlags.length > 0)
    throw configError(unknownFlags[0] ?? '', 'unknown option. The only option is --stdio.');
  const { port, host, publicUrl, logLevel, slop, edge } = loadServerEnv(env, { port: 3002 });
  return {
    port,
    host,
    stdio: argv.includes('--stdio'),
    publicUrl,
    allowedOrigins: envList(env, 'S2SP_ALLOWED_ORIGINS')?.map(origin),
    chartDir: envString(env, 'CHART_DIR'),
    logLevel,
    slop,
    edge,
  };
}
