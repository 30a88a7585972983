import { isLogLevel, type LogLevel } from '@s2sp/server';

/** The chart consumer's settings, from the environment and command line. */
export interface ChartConfig {
  readonly port: number;
  readonly host: string;
  readonly stdio: boolean;
  readonly publicUrl: string | undefined;
  readonly allowedOrigins: string[] | undefined;
  readonly chartDir: string | undefined;
  readonly logLevel: LogLevel;
}

/** A setting that cannot work; the message names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function origin(variable: string, value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  } catch {
    // reported below
  }
  throw new ConfigError(
    `${variable}: "${value}" is not an http(s) origin such as http://127.0.0.1:3001.`,
  );
}

/**
 * Reads the settings: `PORT` (default 3002), `HOST` (127.0.0.1), `S2SP_PUBLIC_URL`,
 * `S2SP_ALLOWED_ORIGINS` (comma-separated origins `draw_chart` may fetch from), `CHART_DIR`,
 * `LOG_LEVEL` (info), and `--stdio`.
 *
 * @throws ConfigError naming the variable when a value is invalid
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  argv: readonly string[],
): ChartConfig {
  const unknownFlags = argv.filter((a) => a.startsWith('-') && a !== '--stdio');
  if (unknownFlags.length > 0)
    throw new ConfigError(`Unknown option ${unknownFlags.join(' ')}. The only option is --stdio.`);
  const port = Number(env.PORT ?? '3002');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`PORT: "${env.PORT}" is not a port number (0-65535).`);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!isLogLevel(logLevel))
    throw new ConfigError(
      `LOG_LEVEL: "${logLevel}" is not one of debug, info, warn, error, silent.`,
    );
  const publicUrl = env.S2SP_PUBLIC_URL?.trim() || undefined;
  if (publicUrl) origin('S2SP_PUBLIC_URL', publicUrl);
  const allowed = env.S2SP_ALLOWED_ORIGINS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((value) => origin('S2SP_ALLOWED_ORIGINS', value));
  return {
    port,
    host: env.HOST?.trim() || '127.0.0.1',
    stdio: argv.includes('--stdio'),
    publicUrl,
    allowedOrigins: allowed && allowed.length > 0 ? allowed : undefined,
    chartDir: env.CHART_DIR?.trim() || undefined,
    logLevel,
  };
}
