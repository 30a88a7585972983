import { S2SPError } from '@s2sp/core';
import type { MiddlewareHandler } from 'hono';
import { callFromServer, useOwnHost } from '../advice.js';
import { s2spErrorToResponse } from './error-response.js';

// A page can only send one of these names as `Host` by being served from this machine: a
// DNS-rebinding page sends its own domain, so loopback names are safe on any port.
const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Options for {@link browserGuard}. */
export interface BrowserGuardOptions {
  /**
   * `Host` values (`host` or `host:port`) the app answers besides loopback names
   * (`localhost`, `127.0.0.1`, `[::1]`, any port). `'*'` turns the `Host` check off (only behind
   * a proxy that checks `Host` itself). A function is called per request, so the list can grow
   * when a listener binds. Default: loopback names only.
   */
  readonly allowedHosts?: readonly string[] | (() => readonly string[]);
  /**
   * Browser origins (`https://app.example.com`) allowed to call besides the server's own origin.
   * Default: none.
   */
  readonly allowedOrigins?: readonly string[] | (() => readonly string[]);
  /** Check `Host` (DNS rebinding). Default true; the data plane turns it off (its token is the credential). */
  readonly checkHost?: boolean;
}

/**
 * The `Host` a request came with: the header, or (where a runtime or `app.request()` leaves it
 * out) the request URL's host, which Node adapters build from that header.
 */
export function requestHost(request: Request): string | undefined {
  const header = request.headers.get('host');
  if (header !== null) return header;
  try {
    return new URL(request.url).host;
  } catch {
    return undefined;
  }
}

/** A request header by its lower-case name; `null` or `undefined` when it is absent. */
export type HeaderGetter = (name: string) => string | null | undefined;

function list(value: readonly string[] | (() => readonly string[]) | undefined): readonly string[] {
  return (typeof value === 'function' ? value() : value) ?? [];
}

/**
 * Whether a `Host` header names this server: a loopback name on any port, or a value in
 * `allowed` (compared without case; an entry without a port matches any port).
 *
 * @param host - the `Host` header
 * @param allowed - extra accepted values; `'*'` accepts any
 */
export function isAllowedHost(
  host: string | undefined | null,
  allowed: readonly string[],
): boolean {
  if (allowed.includes('*')) return true;
  if (!host) return false;
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return false;
  }
  // `new URL` accepts a few things that are no Host header ("a@b", "a/b"); a real one is the
  // same string back.
  if (url.host !== host.toLowerCase() && `${url.hostname}:80` !== host.toLowerCase()) return false;
  if (LOOPBACK_HOSTNAMES.has(url.hostname)) return true;
  const wanted = new Set(allowed.map((entry) => entry.toLowerCase()));
  return wanted.has(url.host) || wanted.has(url.hostname) || wanted.has(host.toLowerCase());
}

/**
 * Why a request looks like a browser's from another site, or `undefined` when it does not: an
 * `Origin` that is neither the request's own origin nor in `allowedOrigins`, or a
 * `Sec-Fetch-Site` of `cross-site` / `same-site` without such an allowed `Origin`. Server-to-server
 * clients send neither header, so they always pass.
 *
 * @param request - the request, or a getter of its headers by lower-case name (for a front door
 *   without a Fetch `Request`; its `Host` is then the `host` header)
 * @param allowedOrigins - extra origins that may call
 * @param options.ownOrigin - whether the request's own origin may call (default true; the data
 *   plane says false: no browser page, however served, has a reason to spend a token)
 */
export function crossSiteReason(
  request: Request | HeaderGetter,
  allowedOrigins: readonly string[] = [],
  options: { readonly ownOrigin?: boolean } = {},
): string | undefined {
  const header: HeaderGetter =
    typeof request === 'function' ? request : (name) => request.headers.get(name);
  const origin = header('origin') ?? null;
  const host = (
    typeof request === 'function' ? (request('host') ?? undefined) : requestHost(request)
  )?.toLowerCase();
  const explicitlyAllowed =
    origin !== null && allowedOrigins.some((o) => o.toLowerCase() === origin.toLowerCase());
  if (origin !== null && !explicitlyAllowed) {
    const own =
      options.ownOrigin !== false &&
      host !== undefined &&
      [`http://${host}`, `https://${host}`].includes(origin.toLowerCase());
    if (!own)
      return `Cross-origin request refused: Origin ${JSON.stringify(origin.slice(0, 100))} is not this server's. ${callFromServer}`;
  }
  const site = header('sec-fetch-site')?.toLowerCase();
  const sameSiteOk = options.ownOrigin !== false && site === 'same-origin';
  if (site && site !== 'none' && !sameSiteOk && !explicitlyAllowed)
    return `Cross-site request refused (Sec-Fetch-Site: ${site.slice(0, 20)}). ${callFromServer}`;
  return undefined;
}

/**
 * Why a request must be refused at the edge (a `Host` this server does not answer to, or a
 * browser request from another site), or `undefined` to let it through.
 */
export function edgeRefusal(request: Request, options: BrowserGuardOptions): string | undefined {
  const host = requestHost(request);
  if (options.checkHost !== false && !isAllowedHost(host, list(options.allowedHosts))) {
    return `Host ${JSON.stringify((host ?? '').slice(0, 100))} is not a name of this server (DNS-rebinding protection). ${useOwnHost}`;
  }
  return crossSiteReason(request, list(options.allowedOrigins));
}

/**
 * Hono middleware that keeps browsers on other sites and DNS-rebinding pages away from the
 * routes after it: a `Host` that is not this server's, an `Origin` from elsewhere, or a
 * `Sec-Fetch-Site` of `cross-site` / `same-site` is answered 403 `forbidden` before any body is
 * read or tool runs. Requests from servers (no `Origin`, no `Sec-Fetch-Site`) pass. Install it on
 * your own app in front of SLOP, A2S or anything else you serve next to S2SP; for an MCP
 * transport of your own, also enable the MCP SDK's protection (`enableDnsRebindingProtection`,
 * `allowedHosts`, `allowedOrigins` of `StreamableHTTPServerTransport`).
 *
 * @param options - allowed hosts and origins
 * @example
 * ```ts
 * app.use('/tools/*', browserGuard({ allowedHosts: ['tools.example.com'] }));
 * ```
 */
export function browserGuard(options: BrowserGuardOptions = {}): MiddlewareHandler {
  return async (c, next) => {
    const reason = edgeRefusal(c.req.raw, options);
    if (reason) return s2spErrorToResponse(new S2SPError('forbidden', reason));
    await next();
    return undefined;
  };
}
