/**
 * The app's settings, read from the environment and the command line by one pure function, so
 * that every rule is unit-tested and a bad value stops the app at start with a message naming the
 * variable.
 *
 * @module
 */
import { isLogLevel, type LogLevel } from '@s2sp/server';
import { DEFAULT_NWS_USER_AGENT, NWS_API_URL } from './nws-client.js';

/** The weather-alerts settings. */
export interface WeatherConfig {
  /** `PORT`: HTTP port (MCP and data plane). Default 3001; 0 with `--stdio` (any free port). */
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
  /** `REDIS_URL`: keep async bodies in Redis (`@s2sp/cache-redis`) instead of memory. */
  readonly redisUrl: string | undefined;
  /** `LOG_LEVEL`: debug, info (default), warn, error or silent. */
  readonly logLevel: LogLevel;
}

/** A setting that cannot work. The message starts with the variable or option name. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** The environment variable or command-line option at fault. */
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.variable = variable;
  }
}

/** The command-line usage, for `--help`. */
export const USAGE = `Usage: s2sp-weather-alerts [--stdio] [--replay] [--help]

The NWS weather S2SP resource server: MCP (Streamable HTTP at /mcp, or stdio) plus the S2SP
data plane at /s2sp/data/.

Options:
  --stdio    serve MCP on standard input/output (the data plane stays on HTTP)
  --replay   answer from recorded NWS responses (offline); same as NWS_REPLAY=1
  --help     print this help

Environment:
  PORT, HOST, NWS_BASE_URL, NWS_USER_AGENT, NWS_TIMEOUT_SECONDS, NWS_CACHE_SECONDS, NWS_REPLAY,
  NWS_FIXTURES_DIR, S2SP_PUBLIC_URL, S2SP_TTL_SECONDS, REDIS_URL, LOG_LEVEL (see README.md).
`;

const HOST_PATTERN = /^[A-Za-z0-9.:[\]%-]+$/;

const FLAGS = new Set(['--stdio', '--replay', '--help', '-h']);

type Env = Readonly<Record<string, string | undefined>>;

/** The variable's value, or `undefined` when unset or blank (an empty `FOO=` means "default"). */
function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function show(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

function number(
  env: Env,
  name: string,
  fallback: number,
  { min, max, integer }: { min: number; max: number; integer: boolean },
): number {
  const text = read(env, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  const pattern = integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  if (!pattern.test(text) || value < min || value > max) {
    throw new ConfigError(
      name,
      `${show(text)} is not ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}.`,
    );
  }
  return value;
}

function httpUrl(env: Env, name: string, example: string): string | undefined {
  const text = read(env, name);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(name, `${show(text)} is not an absolute URL such as ${example}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `${show(text)} must use http or https.`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigError(name, 'must not contain credentials, a query or a fragment.');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function flag(env: Env, name: string): boolean {
  const text = read(env, name)?.toLowerCase();
  if (text === undefined || ['0', 'false', 'no', 'off'].includes(text)) return false;
  if (['1', 'true', 'yes', 'on'].includes(text)) return true;
  throw new ConfigError(name, `${show(text)} is not one of 1, true, yes, on, 0, false, no, off.`);
}

/**
 * Reads the settings. Pure: no I/O, no `process` access.
 *
 * @param env - the environment (`process.env`)
 * @param argv - the command-line arguments after the script (`process.argv.slice(2)`)
 * @throws ConfigError naming the variable or option, for any value that cannot work
 */
export function loadConfig(env: Env, argv: readonly string[]): WeatherConfig {
  const unknown = argv.filter((arg) => !FLAGS.has(arg));
  if (unknown.length > 0) {
    throw new ConfigError(
      unknown[0] ?? '',
      'unknown option. The options are --stdio, --replay and --help.',
    );
  }
  const stdio = argv.includes('--stdio');

  const host = read(env, 'HOST') ?? '127.0.0.1';
  if (!HOST_PATTERN.test(host)) {
    throw new ConfigError('HOST', `${show(host)} is not a host name or IP address.`);
  }

  const userAgent = read(env, 'NWS_USER_AGENT') ?? DEFAULT_NWS_USER_AGENT;
  if (!/^[\x20-\x7e]+$/.test(userAgent)) {
    throw new ConfigError(
      'NWS_USER_AGENT',
      'must be printable ASCII (it is sent as an HTTP header), e.g. "my-alerts/1.0 (ops@example.com)".',
    );
  }

  const redisUrl = read(env, 'REDIS_URL');
  if (redisUrl !== undefined) {
    let protocol = '';
    try {
      protocol = new URL(redisUrl).protocol;
    } catch {
      // reported below
    }
    if (protocol !== 'redis:' && protocol !== 'rediss:') {
      throw new ConfigError(
        'REDIS_URL',
        'is not a redis:// or rediss:// URL such as redis://127.0.0.1:6379.',
      );
    }
  }

  const logLevel = (read(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!isLogLevel(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `${show(logLevel)} is not one of debug, info, warn, error, silent.`,
    );
  }

  return {
    // With stdio the HTTP port only carries the data plane, whose address travels inside each
    // resource_url; a fixed default would make a second client's copy fail on a busy port.
    port: number(env, 'PORT', stdio ? 0 : 3001, { min: 0, max: 65535, integer: true }),
    host,
    stdio,
    replay: argv.includes('--replay') || flag(env, 'NWS_REPLAY'),
    help: argv.includes('--help') || argv.includes('-h'),
    nwsBaseUrl: httpUrl(env, 'NWS_BASE_URL', NWS_API_URL) ?? NWS_API_URL,
    nwsUserAgent: userAgent,
    nwsTimeoutMs:
      number(env, 'NWS_TIMEOUT_SECONDS', 10, { min: 0.1, max: 120, integer: false }) * 1000,
    nwsCacheTtlMs:
      number(env, 'NWS_CACHE_SECONDS', 60, { min: 0, max: 3600, integer: false }) * 1000,
    fixturesDir: read(env, 'NWS_FIXTURES_DIR'),
    publicUrl: httpUrl(env, 'S2SP_PUBLIC_URL', 'https://weather.example.com'),
    ttlSeconds: number(env, 'S2SP_TTL_SECONDS', 600, { min: 1, max: 86_400, integer: true }),
    redisUrl,
    logLevel,
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
 * @throws ConfigError naming the variable
 */
export function loadReplayConfig(env: Env): ReplayConfig {
  const host = read(env, 'HOST') ?? '127.0.0.1';
  if (!HOST_PATTERN.test(host)) {
    throw new ConfigError('HOST', `${show(host)} is not a host name or IP address.`);
  }
  const fixturesDir = read(env, 'NWS_FIXTURES_DIR');
  return {
    port: number(env, 'PORT', 3090, { min: 0, max: 65535, integer: true }),
    host,
    ...(fixturesDir !== undefined && { fixturesDir }),
  };
}
