import { PROTOCOL, S2SPError } from '@s2sp/core';
import type { Context, ErrorHandler, Hono, MiddlewareHandler, NotFoundHandler } from 'hono';
import { passesDataPlane } from '../data-plane/front-door-routes.js';
import { nodeFrontDoor } from '../data-plane/node-front-door.js';
import { CLIENT_ADDRESS_HEADER, clientKey, sealClientAddress } from '../limits/client-quota.js';
import { type BearerAuthInfo, bearerAuth } from './bearer-auth.js';
import { browserGuard, isAllowedHost, requestHost } from './browser-guard.js';
import {
  type ResolvedEdgeOptions,
  resolveEdgeOptions,
  type S2SPEdgeOptions,
} from './edge-options.js';
import { notFoundResponse, s2spErrorToResponse } from './error-response.js';
import { type McpRequestBody, readMcpRequestBody } from './mcp-request-body.js';
import { type ListenOptions, listenOnNode, type NodeListener } from './node-listener.js';
import { whenStreamEnds } from './stream-end.js';

/** The exact `Host` and `Origin` values an MCP SDK transport accepts for one request. */
export interface TransportRebindingProtection {
  readonly allowedHosts: string[];
  readonly allowedOrigins: string[];
}

/**
 * The one HTTP edge of an S2SP server or proxy, made by {@link createS2SPEdge}: Hono middleware
 * and handlers composed with `app.use`, `app.onError` and `app.notFound`, a reader for MCP
 * bodies, and a Node listener — all from one checked options object.
 */
export interface S2SPEdge {
  /** The options, checked and with defaults applied. */
  readonly options: ResolvedEdgeOptions;
  /**
   * Middleware for every route but the data plane (`/s2sp/data/…`, `/s2sp/health`, which is
   * capability-based and checks cross-site requests itself): the browser and DNS-rebinding guard
   * (403 `forbidden`), then bearer auth when configured (401 `unauthorized` with
   * `WWW-Authenticate`). The caller reaches handlers through {@link S2SPEdge.authInfo}.
   */
  readonly middleware: MiddlewareHandler;
  /** `app.onError`: every error as the PROTOCOL §3 JSON body with its status from the one table. */
  readonly onError: ErrorHandler;
  /** `app.notFound`: a 404 `not_found` in the same JSON shape. */
  readonly notFound: NotFoundHandler;
  /** Installs {@link S2SPEdge.middleware}, {@link S2SPEdge.onError} and {@link S2SPEdge.notFound} on `app`. */
  mount<TApp extends Hono>(app: TApp): TApp;
  /**
   * Reads an MCP POST body within `maxMcpRequestBytes`, `requestBodyTimeoutMs` and
   * `maxMcpBatchSize`: the parsed JSON for the transport's `parsedBody`, or the JSON-RPC error
   * response to send (413, 408, 400).
   */
  readMcpBody(c: Context): Promise<McpRequestBody>;
  /** Who the bearer middleware let through, in the MCP SDK's `AuthInfo` shape, or `undefined`. */
  authInfo(c: Context): BearerAuthInfo | undefined;
  /**
   * The request as an MCP transport should see it (its body already read by
   * {@link S2SPEdge.readMcpBody}): the caller's socket address sealed in the client-address
   * header, replacing whatever the client sent, so that `clientKey` can tell callers apart
   * without auth — by address, never by MCP session.
   */
  clientRequest(c: Context): Request;
  /**
   * Who is calling, as one string, by `clientKey`'s rule: `client:<id>` for a caller the bearer
   * middleware let through (its `clientId`), else `address:<ip>` (its socket address), else
   * `anonymous` (an in-process request). Per-client limits count by it, and a session is bound
   * to it ({@link S2SPEdge.sessionOf}).
   */
  caller(c: Context): string;
  /**
   * The session `id` names in `sessions`, when the caller of `c` is the one who opened it
   * (`client`, from {@link S2SPEdge.caller} when it was opened); `undefined` for an unknown id
   * and for another caller's session alike. A session id is a bearer capability no more: a
   * request with another credential (or, without auth, from another address) that carries it
   * must get exactly the answer an unknown id gets, so that it neither acts in the session nor
   * learns that it exists.
   *
   * @param sessions - the endpoint's sessions by id
   * @param id - the `mcp-session-id` of the request
   * @param c - the request
   */
  sessionOf<TSession extends { readonly client: string }>(
    sessions: ReadonlyMap<string, TSession>,
    id: string,
    c: Context,
  ): TSession | undefined;
  /**
   * `response` with `onEnd` called once when its body has been read to the end, has failed or
   * has been cancelled (the client went away); at once for a response without a body. What a
   * cap on open streams needs to give a slot back.
   */
  whenStreamEnds(response: Response, onEnd: () => void | Promise<void>): Response;
  /**
   * The MCP SDK's own DNS-rebinding protection for a transport serving `request`, with the same
   * names as the guard: its lists are exact, so the request's own `Host` joins when the guard
   * accepts it.
   */
  transportProtection(request: Request): TransportRebindingProtection;
  /**
   * Serves `app` on Node (`@hono/node-server`) with the header read timeout
   * (`requestBodyTimeoutMs`) and the bound of its graceful `shutdown()` (`shutdownGraceMs`), and adds the bound address to the hosts the guard accepts.
   * Redemptions go through the data plane's Node front door (the fastest way) while nothing but
   * the data plane and this edge's middleware could run for `/s2sp/data/…` in `app`.
   *
   * @throws S2SPError `invalid_config` for a bad or taken port
   */
  listen(app: Pick<Hono, 'fetch'>, options?: ListenOptions): Promise<NodeListener>;
}

const AUTH_KEY = 's2spAuth';

/** Whether a path belongs to the data plane, which a `resource_url`'s token guards by itself. */
function isDataPlanePath(path: string): boolean {
  return path.startsWith(PROTOCOL.dataPathPrefix) || path === PROTOCOL.healthPath;
}

/**
 * Creates the one HTTP edge: `createS2SPServer` and `@s2sp/proxy` mount it, and so can your own
 * Hono app. The options are checked here, once.
 *
 * @param options - allowed hosts and browser origins, bearer auth, body caps and read timeouts
 * @throws S2SPError `invalid_config` for options that cannot work (`data.variable` names which)
 * @example
 * ```ts
 * const edge = createS2SPEdge({ auth: { bearerTokens: [process.env.API_TOKEN ?? ''] } });
 * const app = edge.mount(new Hono());
 * app.route('/', s2sp.dataPlane);
 * app.post('/mcp', async (c) => {
 *   const read = await edge.readMcpBody(c);
 *   if (!read.ok) return read.response;
 *   // … transport.handleRequest(c.req.raw, { parsedBody: read.body, authInfo: edge.authInfo(c) })
 * });
 * await using listener = await edge.listen(app, { port: 3001 });
 * ```
 */
export function createS2SPEdge(options: S2SPEdgeOptions = {}): S2SPEdge {
  const resolved = resolveEdgeOptions(options);
  // Names this edge has besides the configured ones: the addresses its listeners bound.
  const listenerHosts: string[] = [];
  const allowedHosts = () => [...resolved.allowedHosts, ...listenerHosts];
  const guard = browserGuard({ allowedHosts, allowedOrigins: resolved.allowedOrigins });
  const auth = resolved.auth ? bearerAuth(resolved.auth) : undefined;
  const { logger } = resolved;

  // It hands data-plane requests on untouched: the data plane's Node front door may serve them.
  const middleware: MiddlewareHandler = passesDataPlane(async (c, next) => {
    if (isDataPlanePath(c.req.path)) return next();
    const refused = await guard(c, async () => {});
    if (refused) return refused;
    if (auth) return auth(c, next);
    return next();
  });
  const onError: ErrorHandler = (error) => {
    if (!S2SPError.isInstance(error))
      logger?.error('http: unexpected error', {
        name: error instanceof Error ? error.name : typeof error,
      });
    return s2spErrorToResponse(error);
  };
  const notFound: NotFoundHandler = (c) => notFoundResponse(c);
  const authInfoOf = (c: Context) => {
    const info = c.get(AUTH_KEY as never) as BearerAuthInfo | undefined;
    return info && { ...info, scopes: [...info.scopes] };
  };
  /** The caller's socket address, sealed for `clientKey`; none for an in-process request. */
  const sealedAddress = (c: Context) => {
    const socket = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
      ?.incoming?.socket;
    return socket?.remoteAddress ? sealClientAddress(socket.remoteAddress) : undefined;
  };
  const caller = (c: Context) => {
    const authInfo = c.get(AUTH_KEY as never) as BearerAuthInfo | undefined;
    return clientKey({
      ...(authInfo && { authInfo }),
      requestInfo: { headers: { [CLIENT_ADDRESS_HEADER]: sealedAddress(c) } },
    });
  };

  return {
    options: resolved,
    middleware,
    onError,
    notFound,
    mount(app) {
      app.use('*', middleware);
      app.onError(onError);
      app.notFound(notFound);
      return app;
    },
    readMcpBody: (c) =>
      readMcpRequestBody(c, {
        maxRequestBytes: resolved.maxMcpRequestBytes,
        maxBatchSize: resolved.maxMcpBatchSize,
        bodyTimeoutMs: resolved.requestBodyTimeoutMs,
      }),
    clientRequest(c) {
      const request = c.req.raw;
      const headers = new Headers(request.headers);
      headers.delete(CLIENT_ADDRESS_HEADER);
      const sealed = sealedAddress(c);
      if (sealed) headers.set(CLIENT_ADDRESS_HEADER, sealed);
      return new Request(request.url, { method: request.method, headers });
    },
    authInfo: authInfoOf,
    caller,
    sessionOf(sessions, id, c) {
      const session = sessions.get(id);
      return session?.client === caller(c) ? session : undefined;
    },
    whenStreamEnds,
    transportProtection(request) {
      const hosts = allowedHosts();
      const host = requestHost(request);
      const accepted = host && isAllowedHost(host, hosts) ? [...hosts, host] : hosts;
      return {
        // An empty list turns the SDK's Host check off: for '*', and for a request without a
        // Host header (in-process app.request()), whose URL host the guard has checked.
        allowedHosts:
          accepted.includes('*') || request.headers.get('host') === null ? [] : accepted,
        allowedOrigins: [
          ...resolved.allowedOrigins,
          ...accepted.flatMap((h) => [`http://${h}`, `https://${h}`]),
        ],
      };
    },
    async listen(app, listenOptions) {
      const listener = await listenOnNode(app.fetch, listenOptions, {
        headersTimeoutMs: resolved.requestBodyTimeoutMs,
        shutdownGraceMs: resolved.shutdownGraceMs,
        frontDoor: nodeFrontDoor(app),
      });
      listenerHosts.push(...listener.hosts);
      return listener;
    },
  };
}
