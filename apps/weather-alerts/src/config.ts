/**
 * The app's settings, read from the environment and the command line by one pure function, so
 * that every rule is unit-tested and a bad value stops the app at start with a message naming the
 * variable.
 *
 * @module
 */
import { RedisStoreSettingsSchema } from '@s2sp/cache-redis/settings';
import { optionsFromEnv } from '@s2sp/core/options';
import type { LogLevel } from '@s2sp/server';
import {
  configError,
  type EdgeEnvOptions,
  type Env,
  envFlag,
  envHttpUrl,
  envNumber,
  envString,
  loadServerEnv,
} from '@s2sp/server/env';
import type { SlopOptions } from '@s2sp/server/slop';
import { DEFAULT_NWS_USER_AGENT, NWS_API_URL } from './nws-client.js';

/** The weather-alerts settings. */
export interface WeatherConfig {
  /** `PORT`: HTTP port (MCP and data plane; with `--stdio` the data plane only). Default 3001. */
  readonly port: number;
  /** `HOST`: interface to bind. Default `127.0.0.1`. */
  readonly host: string;
  /** `--stdio`: MCP on standard input/output (the data plane stays on HTTP). */
  readonly stdio: boolean;
  /** `--replay` or `NWS_REPLAY=1`: serve recorded NWS responses from an in-process replay server. */
  readonly replay: boolean;
  /** `--help`: print usage and exit. */
  readonly help: boolean;
  /** `NWS_BASE_URL`: the NWS API. Default `https://api.weather.gov`. */
  readonly nwsBaseUrl: string;
  /** `NWS_USER_AGENT`: sent to NWS, which asks for contact details. */
  readonly nwsUserAgent: string;
  /** `NWS_TIMEOUT_SECONDS` (default 10), in milliseconds. */
  readonly nwsTimeoutMs: number;
  /** `NWS_CACHE_SECONDS` (default 60; 0 turns the response cache off), in milliseconds. */
  readonly nwsCacheTtlMs: number;
  /** `NWS_FIXTURES_DIR`: recordings for `--replay`. Default: the app's `fixtures/`. */
  readonly fixturesDir: string | undefined;
  /** `S2SP_PUBLIC_URL`: base URL advertised in `resource_url`s. */
  readonly publicUrl: string | undefined;
  /** `S2SP_TTL_SECONDS`: `resource_url` lifetime. Default 600. */
  readonly ttlSeconds: number;
  /** `S2SP_RETRY_GRACE_MS`: how long a retry-safe redemption can be repeated (PROTOCOL §7.10). Default 60 000. */
  readonly retryGraceMs: number;
  /** `REDIS_URL`: keep async bodies in Redis (`@s2sp/cache-redis`) instead of memory. */
  readonly redisUrl: string | undefined;
  /**
   * `S2SP_REDIS_PREFIX`: prefix of the app's Redis keys (default `s2sp:`). Replicas share one;
   * another app on the same Redis needs another (the store warns when it finds one there).
   */
  readonly redisPrefix: string | undefined;
  /** `LOG_LEVEL`: debug, info (default), warn, error or silent. */
  readonly logLevel: LogLevel;
  /** `SLOP=1` (+ `SLOP_BEARER_TOKENS`, `SLOP_REQUIRE_SCOPES`): also serve the tools over SLOP. */
  readonly slop: SlopOptions | undefined;
  /**
   * The HTTP edge: `S2SP_ALLOWED_HOSTS`, `S2SP_ALLOWED_BROWSER_ORIGINS`, `S2SP_AUTH_TOKENS`,
   * `S2SP_BODY_TIMEOUT_MS` (see `loadEdgeEnv`).
   */
  readonly edge: EdgeEnvOptions;
}

/** The command-line usage, for `--help`. */
export const USAGE = `Usage: s2sp-weather-alerts [--stdio] [--replay] [--help]

The NWS weather S2SP resource server: MCP (Streamable HTTP at /mcp, or stdio) plus the S2SP
data plane at /s2sp/data/.

Options:
  --stdio    serve MCP on standard input/output (HTTP on PORT, default 3001, then serves
             only the data plane)
  --replay   answer from recorded NWS responses (offline); same as NWS_REPLAY=1
  --help     print this help

Environment:
  PORT, HOST, NWS_BASE_URL, NWS_USER_AGENT, NWS_TIMEOUT_SECONDS, NWS_CACHE_SECONDS, NWS_REPLAY,
  NWS_FIXTURES_DIR, S2SP_PUBLIC_URL, S2SP_TTL_SECONDS, S2SP_RETRY_GRACE_MS, REDIS_URL, S2SP_REDIS_PREFIX,
  LOG_LEVEL, SLOP, SLOP_BEARER_TOKENS, SLOP_REQUIRE_SCOPES, S2SP_ALLOWED_HOSTS, S2SP_ALLOWED_BROWSER_ORIGINS,
  S2SP_AUTH_TOKENS, S2SP_BODY_TIMEOUT_MS (see README.md).
`;

const HOST_PATTERN = /^[A-Za-z0-9.:[\]%-]+$/;

const FLAGS = new Set(['--stdio', '--replay', '--help', '-h']);

/**
 * Reads the settings. Pure: no I/O, no `process` access.
 *
 * @param env - the environment (`process.env`)
 * @param argv - the command-line arguments after the script (`process.argv.slice(2)`)
 * @throws S2SPError `invalid_config` naming the variable or option, for any value that cannot work
 */
export function loadConfig(env: Env, argv: readonly string[]): WeatherConfig {
  const unknown = argv.filter((arg) => !FLAGS.has(arg));
  if (unknown.length > 0) {
    throw configError(
      unknown[0] ?? '',
      'unknown option. The options are --stdio, --replay and --help.',
    );
  }
  const stdio = argv.includes('--stdio');
  // With stdio the HTTP port carries only the data plane. It stays 3001 so that a consumer's
  // allow-list (S2SP_ALLOWED_ORIGINS=http://127.0.0.1:3001) can name it; a second copy on the
  // same machine stops at once with a message saying to set PORT.
  const server = loadServerEnv(env, { port: 3001 });

  const userAgent = envString(env, 'NWS_USER_AGENT') ?? DEFAULT_NWS_USER_AGENT;
  if (!/^[\x20-\x7e]+$/.test(userAgent)) {
    throw configError(
      'NWS_USER_AGENT',
      'must be printable ASCII (it is sent as an HTTP header), e.g. "my-alerts/1.0 (ops@example.com)".',
    );
  }

  // S2SP_REDIS_PREFIX: the `env` name on the Redis store's own keyPrefix option, checked by its rule.
  const redis = optionsFromEnv(RedisStoreSettingsSchema, env, { factory: 'environment' })
    .options as { keyPrefix?: string };

  return {
    ...server,
    redisPrefix: redis.keyPrefix,
    stdio,
    replay: argv.includes('--replay') || envFlag(env, 'NWS_REPLAY'),
    help: argv.includes('--help') || argv.includes('-h'),
    nwsBaseUrl: envHttpUrl(env, 'NWS_BASE_URL', NWS_API_URL) ?? NWS_API_URL,
    nwsUserAgent: userAgent,
    nwsTimeoutMs: envNumber(env, 'NWS_TIMEOUT_SECONDS', 10, { min: 0.1, max: 120 }) * 1000,
    nwsCacheTtlMs: envNumber(env, 'NWS_CACHE_SECONDS', 60, { min: 0, max: 3600 }) * 1000,
    fixturesDir: envString(env, 'NWS_FIXTURES_DIR'),
  };
}

/** Settings of the standalone replay server (`dist/replay-main.js`). */
export interface ReplayConfig {
  /** `PORT`. Default 3090. */
  readonly port: number;
  /** `HOST`. Default `127.0.0.1`. */
  readonly host: string;
  /** `NWS_FIXTURES_DIR`. Default: the app's `fixtures/`. */
  readonly fixturesDir?: string;
}

/**
 * Reads the replay server's settings: `PORT` (default 3090), `HOST`, `NWS_FIXTURES_DIR`.
 *
 * @throws S2SPError `invalid_config` naming the variable
 */
export function loadReplayConfig(env: Env): ReplayConfig {
  const host = envString(env, 'HOST') ?? '127.0.0.1';
  if (!HOST_PATTERN.test(host)) {
    throw configError('HOST', `${JSON.stringify(host)} is not a host name or IP address.`);
  }
  const fixturesDir = envString(env, 'NWS_FIXTURES_DIR');
  return {
    port: envNumber(env, 'PORT', 3090, { min: 0, max: 65535, integer: true }),
    host,
    ...(fixturesDir !== undefined && { fixturesDir }),
  };
}
