/**
 * `@s2sp/server/env`: reading an S2SP server's settings from environment variables, with errors that name the
 * variable. Pure functions (no `process` access), so every rule is unit-testable. Also the options
 * schemas of `createS2SP`, `createS2SPServer` and `createS2SPEdge`, whose metadata names each
 * option's variable (for other readers, such as `s2sp-proxy`'s flags, and for option tables).
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

import { normalizePublicUrl } from '@s2sp/core';
import { type Env, optionsFromEnv, readSettings } from '@s2sp/core/options';
import { ConsumerFetchOptionsSchema } from './consumer/consumer-tool.js';
import { configError } from './edge/config-error.js';
import {
  type EdgeOptionNames,
  EdgeOptionsSchema,
  isHostValue,
  type S2SPEdgeOptions,
} from './edge/edge-options.js';
import { isLogLevel, type LogLevel } from './logger.js';
import { S2SPOptionsSchema } from './runtime/options.js';
import type { SlopOptions } from './slop.js';

export { configError, configErrorVariable } from './edge/config-error.js';
export { EdgeOptionsSchema, isHostValue } from './edge/edge-options.js';
export { S2SPOptionsSchema } from './runtime/options.js';
export { S2SPServerOptionsSchema } from './server-options.js';

/**
 * The HTTP edge's settings read from the environment ({@link loadEdgeEnv}), ready to spread into
 * the options of `createS2SPServer`, `createS2SPProxy` or `createS2SPEdge`.
 */
export type EdgeEnvOptions = Pick<
  S2SPEdgeOptions,
  'allowedHosts' | 'allowedBrowserOrigins' | 'auth' | 'requestBodyTimeoutMs' | 'shutdownGraceMs'
>;

// One declaration of an environment, core's (the settings reader takes it).
export type { Env } from '@s2sp/core/options';

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
  /**
   * `S2SP_RETRY_GRACE_MS`: how long a redemption with an `Idempotency-Key` can be repeated
   * (PROTOCOL §7.10), 0 to 600 000 ms; 0 turns it off. Default 60 000. Pass it as `retryGraceMs`.
   */
  readonly retryGraceMs: number;
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
   * A2S), `S2SP_BODY_TIMEOUT_MS` (request-body read timeout, default 10000) and
   * `S2SP_SHUTDOWN_GRACE_MS` (time running requests get on SIGTERM, default 10000).
   */
  readonly edge: EdgeEnvOptions;
}

/** The edge's options that have a variable, a flag or a file key: the ones settings can set. */
const EDGE_SETTINGS = EdgeOptionsSchema.pick({
  allowedHosts: true,
  allowedBrowserOrigins: true,
  auth: true,
  requestBodyTimeoutMs: true,
  shutdownGraceMs: true,
});

/**
 * Reads the HTTP edge's settings, the one reader of them for every server, the proxy and the
 * apps: `S2SP_ALLOWED_HOSTS`, `S2SP_ALLOWED_BROWSER_ORIGINS`, `S2SP_AUTH_TOKENS`,
 * `S2SP_BODY_TIMEOUT_MS` and `S2SP_SHUTDOWN_GRACE_MS` (see {@link ServerEnv.edge}). The variables are the `env` names on the
 * edge's options schema, and each value is checked by its option's own rule.
 *
 * @param env - the environment (`process.env`)
 * @throws S2SPError `invalid_config` (see {@link configError}) naming the variable
 */
export function loadEdgeEnv(env: Env): EdgeEnvOptions {
  const { options } = optionsFromEnv(EDGE_SETTINGS, env, { factory: 'environment' });
  // The body timeout is always set, so an environment spread over defaults states it.
  return {
    requestBodyTimeoutMs: EDGE_SETTINGS.shape.requestBodyTimeoutMs.parse(undefined),
    ...(options as EdgeEnvOptions),
  };
}

/** The edge's settings as a reader finds them: lists of strings and a number, each optional. */
export interface EdgeSettings {
  readonly allowedHosts?: readonly string[] | undefined;
  readonly allowedBrowserOrigins?: readonly string[] | undefined;
  /** Bearer tokens, each at least 16 characters. */
  readonly authTokens?: readonly string[] | undefined;
  readonly requestBodyTimeoutMs?: number | undefined;
}

/**
 * The one mapping from settings (environment variables, `s2sp-proxy` flags or its config file)
 * to the edge's options: only the settings given are set, checked by the edge's own rules
 * (`resolveEdgeOptions`) with errors naming the setting.
 *
 * @param settings - what the reader found
 * @param names - the variable, flag or key behind each option
 * @throws S2SPError `invalid_config` (see {@link configError}) naming the setting
 */
export function edgeOptionsFrom(settings: EdgeSettings, names: EdgeOptionNames): EdgeEnvOptions {
  const given: Record<string, unknown> = {
    allowedHosts: settings.allowedHosts,
    allowedBrowserOrigins: settings.allowedBrowserOrigins,
    'auth.bearerTokens': settings.authTokens,
    requestBodyTimeoutMs: settings.requestBodyTimeoutMs,
  };
  const { options } = readSettings(
    EDGE_SETTINGS,
    'key',
    // An empty list sets nothing, as an unset variable.
    (setting) => {
      const value = given[setting.path];
      return Array.isArray(value) && value.length === 0 ? undefined : value;
    },
    {
      factory: 'settings',
      names: Object.fromEntries(
        Object.entries(names).map(([key, name]) => [
          key === 'auth' ? 'auth.bearerTokens' : key,
          name,
        ]),
      ),
    },
  );
  return options as EdgeEnvOptions;
}

const SERVER_SETTINGS = S2SPOptionsSchema.pick({
  publicUrl: true,
  ttlSeconds: true,
  retryGraceMs: true,
}).extend({
  ttlSeconds: S2SPOptionsSchema.shape.ttlSeconds.meta({ env: undefined }),
});

/**
 * Reads `PORT`, `HOST`, `S2SP_PUBLIC_URL`, `S2SP_TTL_SECONDS`, `S2SP_RETRY_GRACE_MS`, `REDIS_URL`, `LOG_LEVEL`, `SLOP`,
 * `SLOP_BEARER_TOKENS`, `SLOP_REQUIRE_SCOPES` and the HTTP edge's settings (see
 * {@link loadEdgeEnv}).
 *
 * @param env - the environment (`process.env`)
 * @param defaults - the port when `PORT` is unset
 * @throws S2SPError `invalid_config` (see {@link configError}) naming the variable, for any value that cannot work
 */
export function loadServerEnv(env: Env, defaults: { port: number }): ServerEnv {
  // S2SP_PUBLIC_URL, S2SP_RETRY_GRACE_MS: the `env` names on createS2SP's options schema.
  const runtime = SERVER_SETTINGS.parse(
    optionsFromEnv(SERVER_SETTINGS, env, { factory: 'environment' }).options,
  );
  const host = envString(env, 'HOST') ?? '127.0.0.1';
  if (!isHostValue(host))
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
    publicUrl: runtime.publicUrl,
    // Stricter than the option (any positive number of seconds): a deployment's variable is held
    // to whole seconds up to a day, which the apps and their tests rely on.
    ttlSeconds: envNumber(env, 'S2SP_TTL_SECONDS', runtime.ttlSeconds, {
      min: 1,
      max: 86_400,
      integer: true,
    }),
    retryGraceMs: runtime.retryGraceMs,
    redisUrl,
    logLevel,
    slop,
    edge: loadEdgeEnv(env),
  };
}

/** The fetch settings every consumer app reads from its environment (see {@link loadConsumerEnv}). */
export interface ConsumerEnv {
  /** `S2SP_ALLOWED_ORIGINS`: origins (each with an optional path prefix) consumer tools may fetch from. */
  readonly allowedOrigins: string[] | undefined;
  /** `S2SP_CONSUMER_DESTINATIONS`: without an allow-list, public internet only (default) or anywhere. */
  readonly destinations: 'public' | 'any';
  /** `S2SP_PATH_PREFIXES`: path prefixes allowed before `/s2sp/data/{token}` on any origin. */
  readonly pathPrefixes: string[] | undefined;
  /** `S2SP_MAX_CONCURRENT_FETCHES`: data-plane fetches at once (default 4). */
  readonly maxConcurrentFetches: number;
  /** `S2SP_FETCH_RETRIES`: retries of a data-plane fetch after a dropped reply, 0 to 10 (default 3). */
  readonly fetchRetries: number;
}

/**
 * Reads the consumer settings every consumer app shares: `S2SP_ALLOWED_ORIGINS`,
 * `S2SP_CONSUMER_DESTINATIONS`, `S2SP_PATH_PREFIXES`, `S2SP_MAX_CONCURRENT_FETCHES` and
 * `S2SP_FETCH_RETRIES`. Spread the
 * result into `consumer` of `createS2SP` / `createS2SPServer`.
 *
 * @param env - usually `process.env`
 * @throws S2SPError `invalid_config` naming the variable when a value is invalid
 */
export function loadConsumerEnv(env: Env): ConsumerEnv {
  const destinations = env.S2SP_CONSUMER_DESTINATIONS;
  const { options } = optionsFromEnv(
    CONSUMER_SETTINGS,
    // The one variable whose value is a word: any case will do.
    { ...env, S2SP_CONSUMER_DESTINATIONS: destinations?.toLowerCase() },
    { factory: 'environment' },
  );
  const parsed = CONSUMER_SETTINGS.parse(options);
  return {
    allowedOrigins: parsed.allowedOrigins && [...parsed.allowedOrigins],
    destinations: parsed.destinations,
    pathPrefixes: parsed.pathPrefixes && [...parsed.pathPrefixes],
    maxConcurrentFetches: parsed.maxConcurrentFetches,
    fetchRetries: parsed.fetchRetries,
  };
}

/** The consumer options that have a variable (`env` on their schema). */
const CONSUMER_SETTINGS = ConsumerFetchOptionsSchema.pick({
  allowedOrigins: true,
  destinations: true,
  pathPrefixes: true,
  maxConcurrentFetches: true,
  fetchRetries: true,
});
