import { type Logger, normalizePublicUrl } from '@s2sp/core';
import { positiveOption } from '@s2sp/core/options';
import { type BearerAuthOptions, createBearerCheck } from './bearer-auth.js';
import { configError } from './config-error.js';
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
  /** Largest MCP request body over Streamable HTTP, in bytes. Default 4 MiB (the SDK's default). */
  readonly maxMcpRequestBytes?: number;
  /**
   * Most JSON-RPC messages in one batch (a JSON array) on the MCP endpoint. Default 10; a larger
   * batch gets a JSON-RPC error and runs nothing. Every message of a batch runs at once, so
   * without a cap one request could start any number of tool calls.
   */
  readonly maxMcpBatchSize?: number;
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
  readonly maxMcpRequestBytes: number;
  readonly maxMcpBatchSize: number;
  readonly publicUrl: string | undefined;
  readonly logger: Logger | undefined;
}

/** The option names {@link resolveEdgeOptions} reports, overridable by a caller's own names. */
export type EdgeOptionNames = Partial<Record<Exclude<keyof S2SPEdgeOptions, 'logger'>, string>>;

const HOST_PATTERN = /^[A-Za-z0-9.:[\]%-]+$/;

/**
 * Whether `text` can be a host name, an IP address or `host:port` (the characters of one; the
 * listener or the `Host` comparison says the rest).
 */
export function isHostValue(text: string): boolean {
  return HOST_PATTERN.test(text);
}

function show(value: unknown): string {
  const text = String(value);
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/**
 * Runs one rule. Under a caller's own name (an environment variable, a flag) its error is put in
 * {@link configError}'s form, naming it; otherwise the rule's own error stands.
 */
function checked<T>(names: EdgeOptionNames, key: keyof EdgeOptionNames, rule: () => T): T {
  try {
    return rule();
  } catch (error) {
    const name = names[key];
    if (name === undefined) throw error;
    const message = error instanceof Error ? error.message : String(error);
    // The rule's message starts with the option's name (`publicUrl must …`, `publicUrl: …`).
    throw configError(name, message.replace(new RegExp(`^(${key}|auth)[: ] ?`), ''));
  }
}

/**
 * Checks the edge's options once and applies the defaults: the one place an edge option is
 * parsed, for `createS2SPServer`, the proxy, and the environment and command-line readers (which
 * pass `names`, so an error names `S2SP_AUTH_TOKENS` or `--auth-token` instead of the option).
 *
 * @param options - the edge's options
 * @param names - what to call each option in an error message
 * @throws S2SPError `invalid_config` whose `data.variable` names the option at fault
 */
export function resolveEdgeOptions(
  options: S2SPEdgeOptions = {},
  names: EdgeOptionNames = {},
): ResolvedEdgeOptions {
  const name = (key: keyof EdgeOptionNames) => names[key] ?? key;
  const number = (key: keyof EdgeOptionNames, value: number | undefined, fallback: number) =>
    checked(names, key, () => positiveOption(key, value, fallback, { integer: true }));
  const hosts = options.allowedHosts ?? [];
  const badHost = hosts.find((h) => typeof h !== 'string' || (h !== '*' && !isHostValue(h)));
  if (badHost !== undefined)
    throw configError(
      name('allowedHosts'),
      `${show(badHost)} is not a host or host:port (such as mcp.example.com or 10.0.0.5:3001), or *.`,
    );
  const origins = (options.allowedBrowserOrigins ?? []).map((value) =>
    browserOrigin(name('allowedBrowserOrigins'), value),
  );
  const { auth } = options;
  if (auth !== undefined) checked(names, 'auth', () => createBearerCheck(auth));
  const url = options.publicUrl;
  const base =
    url === undefined ? undefined : checked(names, 'publicUrl', () => normalizePublicUrl(url));
  const publicUrl = base === undefined ? undefined : new URL(base);
  return {
    allowedHosts: [...(publicUrl ? [publicUrl.host] : []), ...hosts],
    allowedBrowserOrigins: origins,
    allowedOrigins: [...(publicUrl ? [publicUrl.origin] : []), ...origins],
    auth: options.auth,
    requestBodyTimeoutMs: number(
      'requestBodyTimeoutMs',
      options.requestBodyTimeoutMs,
      DEFAULT_BODY_TIMEOUT_MS,
    ),
    maxMcpRequestBytes: number('maxMcpRequestBytes', options.maxMcpRequestBytes, 4 * 1024 * 1024),
    maxMcpBatchSize: number('maxMcpBatchSize', options.maxMcpBatchSize, 10),
    publicUrl: base,
    logger: options.logger,
  };
}

function browserOrigin(variable: string, value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.origin !== String(value).replace(/\/$/, '')
  )
    throw configError(
      variable,
      `${show(value)} is not an origin such as https://app.example.com (scheme, host and port only).`,
    );
  return url.origin;
}
