import type { Logger } from '@s2sp/core';
import {
  byteSize,
  httpUrl,
  milliseconds,
  parseOptions,
  positiveInteger,
  stringList,
} from '@s2sp/core/options';
import { z } from 'zod';
import {
  type BearerAuthOptions,
  BearerTokenSchema,
  bearerAuthOptionsSchema,
} from './bearer-auth.js';
import { DEFAULT_BODY_TIMEOUT_MS } from './request-body.js';

/**
 * Options of the one HTTP edge ({@link createS2SPEdge}) that `createS2SPServer`, `@s2sp/proxy`
 * and your own Hono app share: who may call (Host, Origin, bearer tokens), how much they may send
 * and how long they may take. Every one is optional.
 */
export interface S2SPEdgeOptions {
  /**
   * `Host` values (`host` or `host:port`) that `/mcp`, SLOP and A2S answer to, besides loopback
   * names (`localhost`, `127.0.0.1`, `[::1]`), the host of `publicUrl` and the address a listener
   * bound. Any other `Host` gets 403 (DNS-rebinding protection). `['*']` turns the check off, for
   * a reverse proxy that checks `Host` itself. The data plane does not check `Host`: its token is
   * the credential.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Browser origins (`https://app.example.com`) that may call `/mcp`, SLOP and A2S besides the
   * server's own. Requests with any other `Origin`, or with `Sec-Fetch-Site: cross-site` /
   * `same-site`, get 403, on the data plane too. Servers send neither header. Default: none.
   */
  readonly allowedBrowserOrigins?: readonly string[];
  /**
   * Requires `Authorization: Bearer <token>` on everything but the data plane: one of
   * `bearerTokens`, or a token `verifyToken` accepts (its result reaches MCP tool handlers as
   * `extra.authInfo`). Others get 401 with `WWW-Authenticate`. The data plane stays
   * capability-based (a `resource_url` is its own credential). Default: no authentication.
   */
  readonly auth?: BearerAuthOptions;
  /**
   * Longest a request body may take to arrive once its headers are in, in ms; a slower one gets
   * 408 `request_timeout`. A listener also gives a client this long to send its request headers
   * (Node's default is 60 s). Default 10 000.
   */
  readonly requestBodyTimeoutMs?: number;
  /**
   * Longest a listener's `shutdown()` (SIGTERM) lets the requests already running finish, in ms,
   * before it cuts them; new requests meanwhile get 503 `unavailable` with `Retry-After`.
   * Default 10 000.
   */
  readonly shutdownGraceMs?: number;
  /** Largest MCP request body over Streamable HTTP, in bytes. Default 4 MiB (the SDK's default). */
  readonly maxMcpRequestBytes?: number;
  /**
   * Most JSON-RPC messages in one batch (a JSON array) on the MCP endpoint. Default 10; a larger
   * batch gets a JSON-RPC error and runs nothing. Every message of a batch runs at once, so
   * without a cap one request could start any number of tool calls.
   */
  readonly maxMcpBatchSize?: number;
  /**
   * Most 2026-07-28 `subscriptions/listen` streams one client (its authenticated id, else its
   * address) may hold open on the MCP endpoint at once. A listen beyond it is refused (JSON-RPC
   * `-32000`, `data.code` `unavailable`) for that client only; the endpoint's cap for all clients
   * together stays 1,024. One stream carries every kind of change notification. Default 8.
   */
  readonly maxListenStreamsPerClient?: number;
  /** The base URL clients use (`https://mcp.example.com`): its host and origin count as own. */
  readonly publicUrl?: string;
  /** Where unexpected errors are logged (never their messages). Default: nowhere. */
  readonly logger?: Logger;
}

/** {@link S2SPEdgeOptions} checked, with defaults applied. */
export interface ResolvedEdgeOptions {
  /** `allowedHosts` as configured, plus the host of `publicUrl`. */
  readonly allowedHosts: readonly string[];
  /** `allowedBrowserOrigins` normalised (`https://app.example.com`, no trailing slash). */
  readonly allowedBrowserOrigins: readonly string[];
  /** `allowedBrowserOrigins` plus the origin of `publicUrl`. */
  readonly allowedOrigins: readonly string[];
  readonly auth: BearerAuthOptions | undefined;
  readonly requestBodyTimeoutMs: number;
  readonly shutdownGraceMs: number;
  readonly maxMcpRequestBytes: number;
  readonly maxMcpBatchSize: number;
  readonly maxListenStreamsPerClient: number;
  readonly publicUrl: string | undefined;
  readonly logger: Logger | undefined;
}

/** The option names {@link resolveEdgeOptions} reports, overridable by a caller's own names. */
export type EdgeOptionNames = Partial<Record<Exclude<keyof S2SPEdgeOptions, 'logger'>, string>>;

/**
 * Most `subscriptions/listen` streams open at once on one MCP endpoint, all clients together: the
 * SDK's own default, kept beside the per-client cap (`maxListenStreamsPerClient`).
 */
export const MAX_LISTEN_STREAMS = 1024;

/** How long `shutdown()` lets running requests finish unless told otherwise: 10 s. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

const HOST_PATTERN = /^[A-Za-z0-9.:[\]%-]+$/;

/**
 * Whether `text` can be a host name, an IP address or `host:port` (the characters of one; the
 * listener or the `Host` comparison says the rest).
 */
export function isHostValue(text: string): boolean {
  return HOST_PATTERN.test(text);
}

/** A TCP port to listen on: 0 (a free one) to 65535. The one rule of `listen({ port })` and `PORT`. */
export const PortSchema: z.ZodNumber = z
  .number()
  .int()
  .min(0)
  .max(65_535)
  .meta({ allowed: 'a whole number from 0 to 65535', type: 'integer' });

/** A `Host` value an operator lists (`allowedHosts`, `trustedHosts`), or `*`. */
export const HostValueSchema: z.ZodType<string, string> = z
  .string()
  .refine((host) => host === '*' || isHostValue(host))
  .meta({ allowed: 'hosts or host:port values (such as mcp.example.com or 10.0.0.5:3001), or *' });

/** A browser origin (`https://app.example.com`), normalised without a trailing slash. */
const BrowserOriginSchema = z.string().transform((value, context) => {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (
    url &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.origin === value.replace(/\/$/, '')
  )
    return url.origin;
  context.issues.push({
    code: 'custom',
    input: '',
    message: 'must be origins such as https://app.example.com (scheme, host and port only)',
  });
  return z.NEVER;
});

/** A Logger: `debug`, `info`, `warn` and `error` methods. */
export const LoggerSchema: z.ZodType<Logger, Logger> = z
  .custom<Logger>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      ['info', 'warn', 'error'].every(
        (level) => typeof (value as Record<string, unknown>)[level] === 'function',
      ),
  )
  .meta({ allowed: 'a logger with info, warn and error methods', type: 'Logger' });

/**
 * A list of bearer tokens: each one by {@link BearerTokenSchema}, and never empty, from any
 * source. An empty list would be a server without authentication that its operator meant to
 * give some (`S2SP_AUTH_TOKENS=""`, `","` or `" "` from an unfilled template, `authTokens: []`):
 * it is refused at start, the same way from the environment, a flag, a file and the options,
 * while a setting left out still means no authentication.
 */
export const BearerTokenListSchema: z.ZodReadonly<z.ZodArray<z.ZodString>> = stringList(
  BearerTokenSchema,
  {
    nonEmpty:
      'give at least one bearer token of 16 or more characters, or remove the setting to run without authentication',
  },
);

/**
 * The options of {@link createS2SPEdge}: each one's rule, default, environment variable,
 * `s2sp-proxy` flag and config-file key. `createS2SP`, `createS2SPServer` and the proxy reuse its
 * parts (the body read timeout is this schema's rule, nobody else's).
 */
export const EdgeOptionsSchema = z.object({
  allowedHosts: stringList(HostValueSchema).optional().meta({
    env: 'S2SP_ALLOWED_HOSTS',
    flag: '--allowed-host',
    key: 'allowedHosts',
    description: 'Extra `Host` values (`host` or `host:port`; `*` turns the check off).',
  }),
  allowedBrowserOrigins: stringList(BrowserOriginSchema).optional().meta({
    env: 'S2SP_ALLOWED_BROWSER_ORIGINS',
    flag: '--allowed-browser-origin',
    key: 'allowedBrowserOrigins',
    description: 'Browser origins that may call besides the own one.',
  }),
  auth: bearerAuthOptionsSchema(
    BearerTokenListSchema.optional().meta({
      env: 'S2SP_AUTH_TOKENS',
      flag: '--auth-token',
      key: 'authTokens',
    }),
  )
    .optional()
    .meta({
      type: 'object',
      description:
        '`{ bearerTokens, verifyToken, realm, resourceMetadataUrl }`; the variable is comma-separated.',
    }),
  requestBodyTimeoutMs: milliseconds({ min: 100, max: 600_000 })
    .default(DEFAULT_BODY_TIMEOUT_MS)
    .meta({
      env: 'S2SP_BODY_TIMEOUT_MS',
      flag: '--body-timeout-ms',
      key: 'bodyTimeoutMs',
      description: 'Time for the body after the headers, and for the headers on `listen()`.',
    }),
  shutdownGraceMs: milliseconds({ min: 0, max: 600_000 }).default(DEFAULT_SHUTDOWN_GRACE_MS).meta({
    env: 'S2SP_SHUTDOWN_GRACE_MS',
    description:
      'On `shutdown()` (SIGTERM): time the running requests get to finish; new ones get 503.',
  }),
  maxMcpRequestBytes: byteSize()
    .default(4 * 1024 * 1024)
    .describe('Largest MCP request body (413 beyond).'),
  maxMcpBatchSize: positiveInteger()
    .default(10)
    .describe('Most JSON-RPC messages in one batch (400, `-32600`, nothing runs).'),
  maxListenStreamsPerClient: positiveInteger({ max: MAX_LISTEN_STREAMS })
    .default(8)
    .meta({
      env: 'S2SP_MAX_LISTEN_STREAMS_PER_CLIENT',
      flag: '--max-listen-streams-per-client',
      key: 'maxListenStreamsPerClient',
      description: `2026-07-28 \`subscriptions/listen\` streams one client (auth id, else address) may hold open; beyond it its next listen is refused (\`-32000\`, \`data.code\` \`unavailable\`). All clients together: ${MAX_LISTEN_STREAMS}.`,
    }),
  publicUrl: httpUrl().optional().describe('Its host and origin count as the server’s own.'),
  logger: LoggerSchema.optional().describe(
    'Where unexpected errors are logged (name only, never the message).',
  ),
} satisfies Record<keyof S2SPEdgeOptions, z.ZodType>);

/**
 * Checks the edge's options once and applies the defaults: the one place an edge option is
 * parsed, for `createS2SPServer`, the proxy, and the environment and command-line readers (which
 * pass `names`, so an error names `S2SP_AUTH_TOKENS` or `--auth-token` instead of the option).
 *
 * @param options - the edge's options
 * @param names - what to call each option in an error message
 * @throws S2SPError `invalid_config` whose `data.option` names the option at fault (and
 *   `data.variable` its name from `names`)
 */
export function resolveEdgeOptions(
  options: S2SPEdgeOptions = {},
  names: EdgeOptionNames = {},
): ResolvedEdgeOptions {
  const parsed = parseOptions(EdgeOptionsSchema, options, {
    factory: 'createS2SPEdge',
    names: names as Record<string, string>,
  });
  const hosts = parsed.allowedHosts ?? [];
  const origins = parsed.allowedBrowserOrigins ?? [];
  const publicUrl = parsed.publicUrl === undefined ? undefined : new URL(parsed.publicUrl);
  return {
    allowedHosts: [...(publicUrl ? [publicUrl.host] : []), ...hosts],
    allowedBrowserOrigins: origins,
    allowedOrigins: [...(publicUrl ? [publicUrl.origin] : []), ...origins],
    // The caller's own object, so a verifier keeps its identity.
    auth: options.auth,
    requestBodyTimeoutMs: parsed.requestBodyTimeoutMs,
    shutdownGraceMs: parsed.shutdownGraceMs,
    maxMcpRequestBytes: parsed.maxMcpRequestBytes,
    maxMcpBatchSize: parsed.maxMcpBatchSize,
    maxListenStreamsPerClient: parsed.maxListenStreamsPerClient,
    publicUrl: parsed.publicUrl,
    logger: parsed.logger,
  };
}
