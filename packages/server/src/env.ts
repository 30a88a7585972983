/**
 * `@s2sp/server/env`: reading an S2SP server's settings from environment variables, with errors that name the
 * variable. Pure functions (no `process` access), so every rule is unit-testable. Also the options
 * schemas of `createS2SP`, `createS2SPServer` and `createS2SPEdge`, whose metadata names each
 * option's variable, and {@link ServerSettingsSchema}, the process settings (port, host, log
 * level) no factory takes: read any of them, from flags, a file and the environment, with
 * `readSettings` from `@s2sp/core/options`.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

import type { Logger } from '@s2sp/core';
import { configError, misspeltVariables, parseOptions, readSettings } from '@s2sp/core/options';
import { z } from 'zod';
import { ConsumerFetchOptionsSchema } from './consumer/consumer-options.js';
import {
  BearerTokenListSchema,
  EdgeOptionsSchema,
  HostValueSchema,
  PortSchema,
  type S2SPEdgeOptions,
} from './edge/edge-options.js';
import { LOG_LEVELS, type LogLevel } from './logger.js';
import { S2SPOptionsSchema } from './runtime/options.js';
import type { SlopOptions } from './slop.js';

export { EdgeOptionsSchema, isHostValue } from './edge/edge-options.js';
export { S2SPOptionsSchema } from './runtime/options.js';
export { S2SPServerOptionsSchema } from './server-options.js';

/**
 * The HTTP edge's settings read from the environment ({@link loadEdgeEnv}), ready to spread into
 * the options of `createS2SPServer`, `createS2SPProxy` or `createS2SPEdge`.
 */
export type EdgeEnvOptions = Pick<
  S2SPEdgeOptions,
  | 'allowedHosts'
  | 'allowedBrowserOrigins'
  | 'auth'
  | 'requestBodyTimeoutMs'
  | 'shutdownGraceMs'
  | 'maxListenStreamsPerClient'
>;

// One declaration of an environment, core's (the settings reader takes it).
/** The environment as the readers take it (`process.env`, or a test's own record). */
export type Env = Readonly<Record<string, string | undefined>>;

/** A yes/no setting: `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off` as text, any case. */
export const SwitchSchema: z.ZodBoolean = z
  .boolean()
  .meta({ allowed: 'one of 1, true, yes, on, 0, false, no, off', type: 'boolean' });

/**
 * The settings of an S2SP server process that no factory takes (where to listen, what to log, SLOP),
 * and the runtime's own that a deployment sets (`publicUrl`, `ttlSeconds`, `retryGraceMs`): one
 * rule each, with its variable and, where `s2sp-proxy` has one, its flag. `port` has no default:
 * each program has its own.
 */
export const ServerSettingsSchema = z.object({
  port: PortSchema.meta({
    env: 'PORT',
    flag: '--port',
    description: 'HTTP port (MCP, data plane); 0 picks a free one.',
  }),
  host: HostValueSchema.refine((host) => host !== '*')
    .default('127.0.0.1')
    .meta({
      env: 'HOST',
      flag: '--host',
      allowed: 'a host name or IP address',
      description: 'Interface to bind.',
    }),
  logLevel: z
    // A level is a word: any case will do.
    .preprocess(
      (level) => (typeof level === 'string' ? level.toLowerCase() : level),
      z.enum(LOG_LEVELS),
    )
    .default('info')
    .meta({
      env: 'LOG_LEVEL',
      flag: '--log-level',
      allowed: 'one of debug, info, warn, error, silent',
      description: '`debug`, `info`, `warn`, `error` or `silent`; logs go to standard error.',
    }),
  publicUrl: S2SPOptionsSchema.shape.publicUrl,
  ttlSeconds: S2SPOptionsSchema.shape.ttlSeconds,
  retryGraceMs: S2SPOptionsSchema.shape.retryGraceMs,
  slop: SwitchSchema.default(false).meta({
    env: 'SLOP',
    description: 'Serve the tools over SLOP too.',
  }),
  slopBearerTokens: BearerTokenListSchema.optional().meta({
    env: 'SLOP_BEARER_TOKENS',
    description: 'Bearer tokens SLOP requires (one of them), comma-separated.',
  }),
  slopRequireScopes: SwitchSchema.default(false).meta({
    env: 'SLOP_REQUIRE_SCOPES',
    description: 'Check `X-SLOP-Scope` on SLOP requests.',
  }),
});

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
   * A2S), `S2SP_BODY_TIMEOUT_MS` (request-body read timeout, default 10000),
   * `S2SP_SHUTDOWN_GRACE_MS` (time running requests get on SIGTERM, default 10000) and
   * `S2SP_MAX_LISTEN_STREAMS_PER_CLIENT` (2026-07-28 listen streams one client may hold open,
   * default 8).
   */
  readonly edge: EdgeEnvOptions;
  /**
   * Variables that look like a setting's but are no setting's (`S2SP_AUTH_TOKEN` for
   * `S2SP_AUTH_TOKENS`), each with the one it is nearest to: log each `message` as a warning at
   * start. Found among the names of the server's settings and of the schemas passed as
   * `settings`.
   */
  readonly misspelt: ReturnType<typeof misspeltVariables>;
}

/**
 * Reads the variables a settings schema names (`.meta({ env })` on its members), each checked by
 * its member's rule, and applies the schema's defaults: the one way an app reads its own
 * settings, as {@link loadServerEnv} reads the server's.
 *
 * @param schema - the app's settings schema
 * @param env - the environment (`process.env`)
 * @throws S2SPError `invalid_config` naming the variable (see {@link configError})
 * @example
 * ```ts
 * const AppSettingsSchema = z.object({
 *   maxRenders: positiveInteger({ max: 64 }).default(2).meta({ env: 'APP_MAX_RENDERS' }),
 * });
 * const { maxRenders } = loadEnv(AppSettingsSchema, process.env);
 * ```
 */
export function loadEnv<TSchema extends z.ZodType>(schema: TSchema, env: Env): z.output<TSchema> {
  const { options, names } = readSettings(schema, { env }, { factory: 'environment' });
  return parseOptions(schema, options, { factory: 'environment', names });
}

/**
 * The switches on an app's command line (`--stdio`, `--help`): each argument must be one of
 * `switches`.
 *
 * @param argv - the arguments after the script (`process.argv.slice(2)`)
 * @param switches - the switches the app knows
 * @throws S2SPError `invalid_config` naming the first unknown argument
 */
export function readSwitches(
  argv: readonly string[],
  switches: readonly string[],
): ReadonlySet<string> {
  const unknown = argv.find((arg) => !switches.includes(arg));
  if (unknown !== undefined) {
    // Named in full only: `-h` is `--help`'s short form.
    const named = switches.filter((name) => name.startsWith('--'));
    const list = [named.slice(0, -1).join(', '), named.at(-1)].filter(Boolean).join(' and ');
    throw configError(unknown, `unknown option. The options are ${list}.`);
  }
  return new Set(argv);
}

/** The edge's options that have a variable, a flag or a file key: the ones settings can set. */
const EDGE_SETTINGS = EdgeOptionsSchema.pick({
  allowedHosts: true,
  allowedBrowserOrigins: true,
  auth: true,
  requestBodyTimeoutMs: true,
  shutdownGraceMs: true,
  maxListenStreamsPerClient: true,
});

/**
 * Reads the HTTP edge's settings, the one reader of them for every server, the proxy and the
 * apps: `S2SP_ALLOWED_HOSTS`, `S2SP_ALLOWED_BROWSER_ORIGINS`, `S2SP_AUTH_TOKENS`,
 * `S2SP_BODY_TIMEOUT_MS`, `S2SP_SHUTDOWN_GRACE_MS` and `S2SP_MAX_LISTEN_STREAMS_PER_CLIENT` (see {@link ServerEnv.edge}). The variables are the `env` names on the
 * edge's options schema, and each value is checked by its option's own rule.
 *
 * @param env - the environment (`process.env`)
 * @throws S2SPError `invalid_config` naming the variable
 */
export function loadEdgeEnv(env: Env): EdgeEnvOptions {
  const { options } = readSettings(EDGE_SETTINGS, { env }, { factory: 'environment' });
  // The body timeout is always set, so an environment spread over defaults states it.
  return {
    requestBodyTimeoutMs: EDGE_SETTINGS.shape.requestBodyTimeoutMs.parse(undefined),
    ...(options as EdgeEnvOptions),
  };
}

/**
 * The settings schemas whose variables every S2SP server reads: its own, the HTTP edge's and the
 * consumer fetch settings. A variable near one of their names is reported as misspelt.
 */
const SERVER_SETTINGS_SCHEMAS: readonly z.ZodType[] = [
  ServerSettingsSchema,
  EdgeOptionsSchema,
  ConsumerFetchOptionsSchema,
  S2SPOptionsSchema,
];

/**
 * Reads `PORT`, `HOST`, `S2SP_PUBLIC_URL`, `S2SP_TTL_SECONDS`, `S2SP_RETRY_GRACE_MS`, `LOG_LEVEL`,
 * `SLOP`, `SLOP_BEARER_TOKENS`, `SLOP_REQUIRE_SCOPES` (the `env` names of
 * {@link ServerSettingsSchema}) and the HTTP edge's settings (see {@link loadEdgeEnv}), and finds
 * the variables that look like one of these or of the app's own but are misspelt
 * ({@link ServerEnv.misspelt}).
 *
 * @param env - the environment (`process.env`)
 * @param defaults - the port when `PORT` is unset, and the app's own settings schemas (read
 *   with {@link loadEnv}), whose names count as known
 * @throws S2SPError `invalid_config` naming the variable, for any value that cannot work
 */
export function loadServerEnv(
  env: Env,
  defaults: { readonly port: number; readonly settings?: readonly z.ZodType[] },
): ServerEnv {
  const settings = loadEnv(
    ServerSettingsSchema.extend({
      port: ServerSettingsSchema.shape.port.default(defaults.port),
    }),
    env,
  );
  return {
    port: settings.port,
    host: settings.host,
    publicUrl: settings.publicUrl,
    ttlSeconds: settings.ttlSeconds,
    retryGraceMs: settings.retryGraceMs,
    logLevel: settings.logLevel,
    slop: settings.slop
      ? {
          ...(settings.slopBearerTokens && { bearerTokens: [...settings.slopBearerTokens] }),
          requireScopes: settings.slopRequireScopes,
        }
      : undefined,
    edge: loadEdgeEnv(env),
    misspelt: misspeltVariables(env, [...SERVER_SETTINGS_SCHEMAS, ...(defaults.settings ?? [])]),
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
  // A word: any case will do.
  const destinations = env.S2SP_CONSUMER_DESTINATIONS?.toLowerCase();
  const parsed = loadEnv(CONSUMER_SETTINGS, { ...env, S2SP_CONSUMER_DESTINATIONS: destinations });
  return {
    allowedOrigins: parsed.allowedOrigins && [...parsed.allowedOrigins],
    destinations: parsed.destinations,
    pathPrefixes: parsed.pathPrefixes && [...parsed.pathPrefixes],
    maxConcurrentFetches: parsed.maxConcurrentFetches,
    fetchRetries: parsed.fetchRetries,
  };
}

/**
 * Says at start where a consumer app's tools will fetch from when no allow-list is set: a
 * warning for `S2SP_CONSUMER_DESTINATIONS=any` (anywhere, private addresses included), else a
 * note that only public addresses are reached. Nothing when `S2SP_ALLOWED_ORIGINS` is set.
 *
 * @param logger - the app's logger
 * @param consumer - what {@link loadConsumerEnv} read
 * @param tool - the consumer tool, named in the message (`draw_chart`)
 */
export function logConsumerReach(logger: Logger, consumer: ConsumerEnv, tool: string): void {
  if (consumer.allowedOrigins) return;
  if (consumer.destinations === 'any')
    logger.warn(
      `S2SP_CONSUMER_DESTINATIONS=any and no S2SP_ALLOWED_ORIGINS: ${tool} will fetch from any resource_url an agent passes, loopback and private addresses included; development only`,
    );
  else
    logger.info(
      `S2SP_ALLOWED_ORIGINS is not set: ${tool} fetches only from public internet addresses; list your resource servers (loopback ones too) in S2SP_ALLOWED_ORIGINS`,
    );
}

/** The consumer options that have a variable (`env` on their schema). */
const CONSUMER_SETTINGS = ConsumerFetchOptionsSchema.pick({
  allowedOrigins: true,
  destinations: true,
  pathPrefixes: true,
  maxConcurrentFetches: true,
  fetchRetries: true,
});
