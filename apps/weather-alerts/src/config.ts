/**
 * The app's settings, read from the environment and the command line by one pure function, so
 * that every rule is unit-tested and a bad value stops the app at start with a message naming the
 * variable.
 *
 * @module
 */
import { RedisStoreSettingsSchema } from '@s2sp/cache-redis/settings';
import { httpUrl, optionRows, positiveNumber } from '@s2sp/core/options';
import type { LogLevel } from '@s2sp/server';
import {
  type EdgeEnvOptions,
  EdgeOptionsSchema,
  type Env,
  loadEnv,
  loadServerEnv,
  readSwitches,
  type ServerEnv,
  ServerSettingsSchema,
  SwitchSchema,
} from '@s2sp/server/env';
import type { SlopOptions } from '@s2sp/server/slop';
import { z } from 'zod';
import { NWS_API_URL, NwsClientOptionsSchema } from './nws-client.js';

/**
 * The app's own settings, each with its variable and the NWS client's or the Redis store's rule:
 * read with {@link loadEnv}, like the server's own (`loadServerEnv`).
 */
const WeatherSettingsSchema = z.object({
  nwsBaseUrl: httpUrl().default(NWS_API_URL).meta({ env: 'NWS_BASE_URL' }),
  nwsUserAgent: NwsClientOptionsSchema.shape.userAgent.meta({ env: 'NWS_USER_AGENT' }),
  nwsTimeoutSeconds: positiveNumber({ min: 0.1, max: 120 })
    .default(10)
    .meta({ env: 'NWS_TIMEOUT_SECONDS' }),
  nwsCacheSeconds: positiveNumber({ min: 0, max: 3600 })
    .default(60)
    .meta({ env: 'NWS_CACHE_SECONDS' }),
  replay: SwitchSchema.default(false).meta({ env: 'NWS_REPLAY' }),
  fixturesDir: z.string().optional().meta({ env: 'NWS_FIXTURES_DIR' }),
  redis: RedisStoreSettingsSchema.prefault({}),
});

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
  readonly redisPrefix: string;
  /** `LOG_LEVEL`: debug, info (default), warn, error or silent. */
  readonly logLevel: LogLevel;
  /** `SLOP=1` (+ `SLOP_BEARER_TOKENS`, `SLOP_REQUIRE_SCOPES`): also serve the tools over SLOP. */
  readonly slop: SlopOptions | undefined;
  /**
   * The HTTP edge: `S2SP_ALLOWED_HOSTS`, `S2SP_ALLOWED_BROWSER_ORIGINS`, `S2SP_AUTH_TOKENS`,
   * `S2SP_BODY_TIMEOUT_MS` (see `loadEdgeEnv`).
   */
  readonly edge: EdgeEnvOptions;
  /** Variables that look like one of these but are misspelt: warn of each at start. */
  readonly misspelt: ServerEnv['misspelt'];
}

/**
 * Every variable the app reads, from the schemas that declare them: the server's, the HTTP
 * edge's and the app's own. The README's configuration table is checked against it.
 */
export const VARIABLES: readonly string[] = [
  ServerSettingsSchema,
  EdgeOptionsSchema,
  WeatherSettingsSchema,
].flatMap((schema) => optionRows(schema).flatMap((row) => row.env));

/** The command-line usage, for `--help`. */
export const USAGE = `Usage: s2sp-weather-alerts [--stdio] [--replay] [--help]

The NWS weather S2SP resource server: MCP (Streamable HTTP at /mcp, or stdio) plus the S2SP
data plane at /s2sp/data/.

Options:
  --stdio    serve MCP on standard input/output (HTTP on PORT, default 3001, then serves
             only the data plane)
  --replay   answer from recorded NWS responses (offline); same as NWS_REPLAY=1
  --help     print this help

Environment (see README.md):
${VARIABLES.join(', ')
  .replace(/(.{1,92})(?:, |$)/g, '  $1,\n')
  .replace(/,\n$/, '.')}
`;

/**
 * Reads the settings. Pure: no I/O, no `process` access.
 *
 * @param env - the environment (`process.env`)
 * @param argv - the command-line arguments after the script (`process.argv.slice(2)`)
 * @throws S2SPError `invalid_config` naming the variable or option, for any value that cannot work
 */
export function loadConfig(env: Env, argv: readonly string[]): WeatherConfig {
  const switches = readSwitches(argv, ['--stdio', '--replay', '--help', '-h']);
  const stdio = switches.has('--stdio');
  // With stdio the HTTP port carries only the data plane. It stays 3001 so that a consumer's
  // allow-list (S2SP_ALLOWED_ORIGINS=http://127.0.0.1:3001) can name it; a second copy on the
  // same machine stops at once with a message saying to set PORT.
  const server = loadServerEnv(env, { port: 3001, settings: [WeatherSettingsSchema] });
  const own = loadEnv(WeatherSettingsSchema, env);
  return {
    ...server,
    redisUrl: own.redis.url,
    redisPrefix: own.redis.keyPrefix,
    stdio,
    replay: switches.has('--replay') || own.replay,
    help: switches.has('--help') || switches.has('-h'),
    nwsBaseUrl: own.nwsBaseUrl,
    nwsUserAgent: own.nwsUserAgent,
    nwsTimeoutMs: own.nwsTimeoutSeconds * 1000,
    nwsCacheTtlMs: own.nwsCacheSeconds * 1000,
    fixturesDir: own.fixturesDir,
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

/** The replay server's settings: the server's port and host rules, and the fixtures. */
const ReplaySettingsSchema = z.object({
  port: ServerSettingsSchema.shape.port.default(3090),
  host: ServerSettingsSchema.shape.host,
  fixturesDir: WeatherSettingsSchema.shape.fixturesDir,
});

/**
 * Reads the replay server's settings: `PORT` (default 3090), `HOST`, `NWS_FIXTURES_DIR`.
 *
 * @throws S2SPError `invalid_config` naming the variable
 */
export function loadReplayConfig(env: Env): ReplayConfig {
  return loadEnv(ReplaySettingsSchema, env);
}
