/**
 * `@s2sp/server/env`: reading an S2SP server's settings from environment variables, with errors that name the
 * variable. Pure functions (no `process` access), so every rule is unit-testable.
 *
 * @module
 */

import { normalizePublicUrl, S2SPError } from '@s2sp/core';
import { isLogLevel, type LogLevel } from './logger.js';
import type { S2SPServerOptions } from './server.js';
import type { SlopOptions } from './slop.js';

/** The HTTP-edge settings of a server, ready to spread into `createS2SPServer`'s options. */
export type ServerEdgeOptions = Pick<
  S2SPServerOptions,
  'allowedHosts' | 'allowedBrowserOrigins' | 'auth' | 'requestBodyTimeoutMs'
>;

/** An environment, such as `process.env`. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * A setting that cannot work: an {@link S2SPError} `invalid_config` whose message starts with the
 * variable's name and whose `data.variable` names it, so a start-up script can point at it.
 *
 * @param variable - the environment variable (or command-line option) at fault
 * @param message - what is wrong and what would work
 */
export function configError(variable: string, message: string): S2SPError {
  return new S2SPError('invalid_config', `${variable}: ${message}`, { data: { variable } });
}

/** The variable or option an `invalid_config` error from {@link configError} names, if any. */
export function configErrorVariable(error: unknown): string | undefined {
  if (!S2SPError.isInstance(error) || error.code !== 'invalid_config') return undefined;
  const variable = error.data?.variable;
  return typeof variable === 'string' ? variable : undefined;
}

/** The variable's value, trimmed, or `undefined` when unset or blank (`FOO=` means "default"). */
export function envString(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function show(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/**
 * A number within bounds.
 * @throws S2SPError `invalid_config` (see {@link configError}) when it is not a (whole, if `integer`) number from `min` to `max`
 */
export function envNumber(
  env: Env,
  name: string,
  fallback: number,
  bounds: { min: number; max: number; integer?: boolean },
): number {
  const text = envString(env, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  const pattern = bounds.integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  if (!pattern.test(text) || value < bounds.min || value > bounds.max) {
    throw configError(
      name,
      `${show(text)} is not ${bounds.integer ? 'a whole number' : 'a number'} from ${bounds.min} to ${bounds.max}.`,
    );
  }
  return value;
}

/**
 * A yes/no switch: `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off` (any case); unset is no.
 * @throws S2SPError `invalid_config` (see {@link configError}) for anything else
 */
export function envFlag(env: Env, name: string): boolean {
  const text = envString(env, name)?.toLowerCase();
  if (text === undefined || ['0', 'false', 'no', 'off'].includes(text)) return false;
  if (['1', 'true', 'yes', 'on'].includes(text)) return true;
  throw configError(name, `${show(text)} is not one of 1, true, yes, on, 0, false, no, off.`);
}

/**
 * An absolute http(s) URL without credentials, query or fragment, normalised without a trailing
 * slash (a path is kept).
 * @throws S2SPError `invalid_config` (see {@link configError}) otherwise
 */
export function envHttpUrl(env: Env, name: string, example: string): string | undefined {
  const text = envString(env, name);
  if (text === undefined) return undefined;
  try {
    return normalizePublicUrl(text, name, example);
  } catch (cause) {
    // The same rule as every configured base URL; only the message is put in this module's form.
    const message = cause instanceof Error ? cause.message : String(cause);
    throw configError(
      name,
      message.startsWith(`${name} `) ? message.slice(name.length + 1) : message,
    );
  }
}

/** A comma-separated list, trimmed, without empty items; `undefined` when unset. */
export function envList(env: Env, name: string): string[] | undefined {
  const items = envString(env, name)
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items && items.length > 0 ? items : undefined;
}

/** Settings every S2SP server reads the same way. */
export interface ServerEnv {
  /** `PORT`: HTTP port (MCP, data plane). */
  readonly port: number;
  /** `HOST`: interface to bind. Default `127.0.0.1`. */
  readonly host: string;
  /** `S2SP_PUBLIC_URL`: base URL advertised in `resource_url`s. */
  readonly publicUrl: string | undefined;
  /** `S2SP_TTL_SECONDS`: `resource_url` lifetime. Default 600. */
  readonly ttlSeconds: number;
  /** `REDIS_URL`: keep bodies in Redis (`@s2sp/cache-redis`) instead of memory. */
  readonly redisUrl: string | undefined;
  /** `LOG_LEVEL`: debug, info (default), warn, error or silent. */
  readonly logLevel: LogLevel;
  /**
   * `SLOP=1` serves the tools over SLOP too; `SLOP_BEARER_TOKENS` (comma-separated, each at least
   * 16 characters) requires one of them; `SLOP_REQUIRE_SCOPES=1` checks `X-SLOP-Scope`.
   * `undefined` when SLOP is off.
   */
  readonly slop: SlopOptions | undefined;
  /**
   * The HTTP edge: `S2SP_ALLOWED_HOSTS` (comma-separated `Host` values `/mcp`, SLOP and A2S
   * answer besides loopback names and the `S2SP_PUBLIC_URL` host; `*` turns the check off),
   * `S2SP_ALLOWED_BROWSER_ORIGINS` (origins of browser pages that may call), `S2SP_AUTH_TOKENS`
   * (comma-separated bearer tokens, each at least 16 characters, required on `/mcp`, SLOP and
   * A2S) and `S2SP_BODY_TIMEOUT_MS` (request-body read timeout, default 10000).
   */
  readonly edge: ServerEdgeOptions;
}

function browserOrigin(variable: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.origin !== value.replace(/\/$/, '')
  )
    throw configError(
      variable,
      `${show(value)} is not an origin such as https://app.example.com (scheme, host and port only).`,
    );
  return url.origin;
}

/**
 * Reads the HTTP-edge settings (see {@link ServerEnv.edge}).
 *
 * @throws S2SPError `invalid_config` (see {@link configError}) naming the variable
 */
export function loadEdgeEnv(env: Env): ServerEdgeOptions {
  const hosts = envList(env, 'S2SP_ALLOWED_HOSTS');
  const bad = hosts?.find((host) => host !== '*' && !HOST_PATTERN.test(host));
  if (bad !== undefined)
    throw configError('S2SP_ALLOWED_HOSTS', `${show(bad)} is not a host or host:port.`);
  const origins = envList(env, 'S2SP_ALLOWED_BROWSER_ORIGINS')?.map((origin) =>
    browserOrigin('S2SP_ALLOWED_BROWSER_ORIGINS', origin),
  );
  const tokens = envList(env, 'S2SP_AUTH_TOKENS');
  if (tokens?.some((token) => token.length < 16 || !/^[A-Za-z0-9\-._~+/]+=*$/.test(token)))
    throw configError(
      'S2SP_AUTH_TOKENS',
      'every token must be at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (RFC 6750).',
    );
  return {
    ...(hosts && { allowedHosts: hosts }),
    ...(origins && { allowedBrowserOrigins: origins }),
    ...(tokens && { auth: { bearerTokens: tokens } }),
    requestBodyTimeoutMs: envNumber(env, 'S2SP_BODY_TIMEOUT_MS', 10_000, {
      min: 100,
      max: 600_000,
      integer: true,
    }),
  };
}

const HOST_PATTERN = /^[A-Za-z0-9.:[\]%-]+$/;

/**
 * Reads `PORT`, `HOST`, `S2SP_PUBLIC_URL`, `S2SP_TTL_SECONDS`, `REDIS_URL`, `LOG_LEVEL`, `SLOP`,
 * `SLOP_BEARER_TOKENS`, `SLOP_REQUIRE_SCOPES` and the HTTP edge's settings (see
 * {@link loadEdgeEnv}).
 *
 * @param env - the environment (`process.env`)
 * @param defaults - the port when `PORT` is unset
 * @throws S2SPError `invalid_config` (see {@link configError}) naming the variable, for any value that cannot work
 */
export function loadServerEnv(env: Env, defaults: { port: number }): ServerEnv {
  const host = envString(env, 'HOST') ?? '127.0.0.1';
  if (!HOST_PATTERN.test(host))
    throw configError('HOST', `${show(host)} is not a host name or IP address.`);

  const redisUrl = envString(env, 'REDIS_URL');
  if (redisUrl !== undefined) {
    let protocol = '';
    try {
      protocol = new URL(redisUrl).protocol;
    } catch {
      // reported below
    }
    if (protocol !== 'redis:' && protocol !== 'rediss:') {
      throw configError(
        'REDIS_URL',
        'is not a redis:// or rediss:// URL such as redis://127.0.0.1:6379.',
      );
    }
  }

  const logLevel = (envString(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!isLogLevel(logLevel))
    throw configError(
      'LOG_LEVEL',
      `${show(logLevel)} is not one of debug, info, warn, error, silent.`,
    );

  let slop: SlopOptions | undefined;
  if (envFlag(env, 'SLOP')) {
    const tokens = envList(env, 'SLOP_BEARER_TOKENS');
    if (tokens?.some((token) => token.length < 16)) {
      throw configError('SLOP_BEARER_TOKENS', 'every token must be at least 16 characters long.');
    }
    slop = {
      ...(tokens && { bearerTokens: tokens }),
      requireScopes: envFlag(env, 'SLOP_REQUIRE_SCOPES'),
    };
  }

  return {
    port: envNumber(env, 'PORT', defaults.port, { min: 0, max: 65535, integer: true }),
    host,
    publicUrl: envHttpUrl(env, 'S2SP_PUBLIC_URL', 'https://data.example.com'),
    ttlSeconds: envNumber(env, 'S2SP_TTL_SECONDS', 600, { min: 1, max: 86_400, integer: true }),
    redisUrl,
    logLevel,
    slop,
    edge: loadEdgeEnv(env),
  };
}
