import { type BodyStore, DATA_PATH_PREFIX, HEALTH_PATH, S2SPError } from '@s2sp/core';
import { positiveOption } from '@s2sp/core/internal';
import { Hono } from 'hono';
import type { z } from 'zod';
import { type A2SCapability, mountA2S } from './a2s.js';
import type { ConsumerToolConfig, ConsumerToolHandler } from './consumer-tool.js';
import { type BearerAuthOptions, bearerAuth } from './http/bearer-auth.js';
import { browserGuard, isAllowedHost, requestHost } from './http/browser-guard.js';
import { notFoundResponse, s2spErrorToResponse } from './http/error-response.js';
import { mountStatelessMcp } from './mcp-endpoint.js';
import { loadStdioTransport, McpServer, type Transport } from './mcp-sdk.js';
import { type ListenOptions, listenOnNode } from './node-listener.js';
import type { S2SPOptions } from './options.js';
import type { ResourceToolConfig, ResourceToolHandler } from './resource-tool.js';
import { createS2SPInternals, type S2SP } from './s2sp.js';
import { mountSlop, type SlopOptions } from './slop.js';

/** Options for {@link createS2SPServer}: the runtime's options plus the MCP server's identity. */
export interface S2SPServerOptions extends S2SPOptions {
  /** The MCP server name. */
  readonly name: string;
  /** The MCP server version. */
  readonly version: string;
  /**
   * MCP `instructions` sent to clients at initialisation. With `toolGuidance: "instructions"`
   * the S2SP how-to ({@link S2SP.instructions}) is appended.
   */
  readonly instructions?: string;
  /** Largest MCP request body over Streamable HTTP. Default 4 MiB (the SDK's default). */
  readonly maxMcpRequestBytes?: number;
  /** Path of the Streamable HTTP endpoint. Default `/mcp`. */
  readonly mcpPath?: string;
  /**
   * `Host` values (`host` or `host:port`) that `/mcp`, SLOP and A2S answer to, besides loopback
   * names (`localhost`, `127.0.0.1`, `[::1]`), the host of `publicUrl`, `trustedHosts` and the
   * address a listener bound. Any other `Host` gets 403 (DNS-rebinding protection; on `/mcp` the
   * MCP SDK's own). `['*']` turns the check off, for a reverse proxy that checks `Host` itself.
   * The data plane does not check `Host`: its token is the credential.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Browser origins (`https://app.example.com`) that may call `/mcp`, SLOP and A2S besides the
   * server's own. Requests with any other `Origin`, or with `Sec-Fetch-Site: cross-site` /
   * `same-site`, get 403, on the data plane too. Servers send neither header. Default: none.
   */
  readonly allowedBrowserOrigins?: readonly string[];
  /**
   * Requires `Authorization: Bearer <token>` on `/mcp`, SLOP and A2S: one of `bearerTokens`, or a
   * token `verifyToken` accepts (its result reaches MCP tool handlers as `extra.authInfo`).
   * Others get 401 with `WWW-Authenticate`. The data plane stays capability-based (a
   * `resource_url` is its own credential). Default: no authentication.
   */
  readonly auth?: BearerAuthOptions;
  /**
   * Most JSON-RPC messages in one batch (a JSON array) on the MCP endpoint. Default 10; a larger
   * batch gets a JSON-RPC error and runs nothing. Every message of a batch runs at once, so
   * without a cap one request could start any number of tool calls.
   */
  readonly maxMcpBatchSize?: number;
}

export type { ListenOptions } from './node-listener.js';

/** A server listening on a port; close it with `close()` or `await using`. */
export interface ListeningServer extends AsyncDisposable {
  /** Base URL of the listener, `http://127.0.0.1:3001`. */
  readonly url: string;
  /** The Streamable HTTP MCP endpoint. */
  readonly mcpUrl: string;
  /** The bound port. */
  readonly port: number;
  /** Stops accepting connections and closes open ones. */
  close(): Promise<void>;
}

/**
 * A ready-made S2SP server: the {@link S2SP} runtime plus an `McpServer` factory, a Hono app with
 * the data plane and stateless Streamable HTTP at `/mcp`, a Node listener and stdio. Created by
 * {@link createS2SPServer}. To add S2SP to a server you already have, use `createS2SP`.
 */
export interface S2SPServer {
  /** The MCP server name. */
  readonly name: string;
  /** The body store this server caches async results in. */
  readonly store: BodyStore;
  /** The runtime underneath, to register the same tools on an `McpServer` of your own. */
  readonly s2sp: S2SP;
  /**
   * A Hono app serving the data plane (`/s2sp/data/:token`, `/s2sp/health`) and the stateless
   * Streamable HTTP MCP endpoint (`/mcp`). Serve it with any Hono adapter, or add routes.
   */
  readonly app: Hono;
  /**
   * Adds a resource tool (PROTOCOL §2) to every `McpServer` this server makes.
   * @throws S2SPError `invalid_config` on a duplicate name or a reserved parameter name
   */
  resourceTool<TShape extends z.ZodRawShape = Record<never, never>>(
    name: string,
    config: ResourceToolConfig<TShape>,
    handler: ResourceToolHandler<TShape>,
  ): S2SPServer;
  /**
   * Adds a consumer tool (PROTOCOL §4) to every `McpServer` this server makes.
   * @throws S2SPError `invalid_config` on a duplicate name or a reserved parameter name
   */
  consumerTool<TShape extends z.ZodRawShape = Record<never, never>>(
    name: string,
    config: ConsumerToolConfig<TShape>,
    handler: ConsumerToolHandler<TShape>,
  ): S2SPServer;
  /**
   * Adds ordinary MCP tools, resources and prompts. `configure` runs on every `McpServer` this
   * server creates (one per HTTP request in stateless mode, one per stdio connection), so it
   * must only register things.
   */
  use(configure: (mcp: McpServer) => void): S2SPServer;
  /** A new `McpServer` with every tool registered, for a transport of your own. */
  createMcpServer(): McpServer;
  /** Connects a new `McpServer` to `transport` (for example an in-memory one in tests). */
  connect(transport: Transport): Promise<McpServer>;
  /** Serves {@link S2SPServer.app} over HTTP on Node (`@hono/node-server`). */
  listen(options?: ListenOptions): Promise<ListeningServer>;
  /**
   * Serves MCP over standard input and output. The data plane still needs HTTP: call
   * {@link S2SPServer.listen} too, or set `publicUrl` to a data plane served elsewhere.
   */
  connectStdio(): Promise<McpServer>;
  /**
   * Also serves the tools over SLOP (`GET /tools`, `POST /tools/:tool_id`) on {@link S2SPServer.app},
   * for agents that speak plain HTTP instead of MCP. Opt-in; see `mountSlop` in
   * `@s2sp/server/slop`.
   */
  mountSlop(options?: SlopOptions): S2SPServer;
  /**
   * The base URL this server advertises: `publicUrl`, else the address of its first `listen()`,
   * else `undefined`.
   */
  advertisedUrl(): string | undefined;
  /**
   * Publishes A2S capability documents at `/.well-known/a2s/capabilities` (see `mountA2S` in
   * `@s2sp/server/a2s`). `build` gets the server's advertised base URL, so documents can name the
   * real endpoints; it runs on the first request and again only if that URL changes. Until the
   * server has an address the routes answer 404.
   */
  mountA2S(
    build: (baseUrl: string) => readonly A2SCapability[] | Promise<readonly A2SCapability[]>,
  ): S2SPServer;
  /** Closes every listener, and the store when the server created it. */
  close(): Promise<void>;
}

/**
 * Creates a ready-made S2SP server: a convenience layer over {@link createS2SP} for servers that
 * are only S2SP tools. It owns its `McpServer`s (one per stateless HTTP request or stdio
 * connection), a Hono app and its listeners.
 *
 * @param options - name, version, and the runtime's options
 * @throws S2SPError `invalid_config` for options that cannot work
 *
 * @example
 * ```ts
 * const server = createS2SPServer({ name: 'weather', version: '1.0.0' });
 * server.resourceTool('get_alerts', { description: 'Active alerts', inputSchema: { area: z.string() } },
 *   async ({ area }) => fetchAlerts(area));
 * const { mcpUrl } = await server.listen({ port: 3001 });
 * ```
 */
export function createS2SPServer(options: S2SPServerOptions): S2SPServer {
  if (
    typeof options.name !== 'string' ||
    options.name === '' ||
    typeof options.version !== 'string' ||
    options.version === ''
  ) {
    throw new S2SPError('invalid_config', 'createS2SPServer needs a non-empty name and version.');
  }
  const maxMcpRequestBytes = positiveOption(
    'maxMcpRequestBytes',
    options.maxMcpRequestBytes,
    4 * 1024 * 1024,
    { integer: true },
  );
  const maxBatchSize = positiveOption('maxMcpBatchSize', options.maxMcpBatchSize, 10, {
    integer: true,
  });
  const mcpPath = options.mcpPath ?? '/mcp';
  const { s2sp, options: resolved, advertisedUrl } = createS2SPInternals(options, options.name);
  const bodyTimeoutMs = resolved.requestBodyTimeoutMs;
  const { logger } = resolved;
  // This server owns its McpServer: with the how-to out of the tools, it goes here, once.
  const instructions =
    resolved.toolGuidance === 'instructions'
      ? [options.instructions, s2sp.instructions].filter(Boolean).join('\n\n')
      : options.instructions;
  const registrations: ((mcp: McpServer) => void)[] = [];
  const toolNames = new Set<string>();
  const listeners = new Set<ListeningServer>();

  const claimName = (name: string) => {
    if (toolNames.has(name))
      throw new S2SPError(
        'invalid_config',
        `A tool named "${name}" is already registered on this server.`,
      );
    toolNames.add(name);
  };

  // Registering once on a scratch server checks the name and configuration at once, so a bad
  // tool fails here and not on the first request.
  const addTool = (name: string, registerOn: (mcp: McpServer) => void) => {
    registerOn(new McpServer({ name: options.name, version: options.version }));
    claimName(name);
    registrations.push(registerOn);
  };

  const createMcpServer = (): McpServer => {
    const mcp = new McpServer(
      { name: options.name, version: options.version },
      instructions ? { instructions } : {},
    );
    for (const registerOn of registrations) registerOn(mcp);
    return mcp;
  };

  // Who may reach /mcp, SLOP and A2S: the names this server has (publicUrl, trustedHosts, the
  // addresses it listens on) and the ones the operator adds; loopback names always.
  const listenerHosts: string[] = [];
  const publicUrl = resolved.publicUrl ? new URL(resolved.publicUrl) : undefined;
  const configuredHosts = [
    ...(publicUrl ? [publicUrl.host] : []),
    ...resolved.trustedHosts,
    ...(options.allowedHosts ?? []),
  ];
  const allowedHosts = () => [...configuredHosts, ...listenerHosts];
  const allowedOrigins = [
    ...(publicUrl ? [publicUrl.origin] : []),
    ...(options.allowedBrowserOrigins ?? []),
  ];
  const guard = browserGuard({ allowedHosts, allowedOrigins });
  const auth = options.auth ? bearerAuth(options.auth) : undefined;
  // The data plane is capability-based and has its own cross-site check (in mountDataPlane).
  const isDataPlane = (path: string) => path.startsWith(DATA_PATH_PREFIX) || path === HEALTH_PATH;

  const app = new Hono();
  app.use('*', (c, next) => (isDataPlane(c.req.path) ? next() : guard(c, next)));
  if (auth) app.use('*', (c, next) => (isDataPlane(c.req.path) ? next() : auth(c, next)));
  app.route('/', s2sp.dataPlane);
  const dataPlaneApp = new Hono();
  dataPlaneApp.route('/', s2sp.dataPlane);
  dataPlaneApp.notFound(notFoundResponse);
  mountStatelessMcp(app, {
    path: mcpPath,
    createMcpServer,
    maxRequestBytes: maxMcpRequestBytes,
    bodyTimeoutMs,
    // The MCP SDK's DNS-rebinding protection on the transport too, with the same names: its
    // lists are exact, so the request's own Host joins when the rule above accepts it.
    rebindingProtection: (request) => {
      const hosts = allowedHosts();
      const host = requestHost(request);
      const accepted = host && isAllowedHost(host, hosts) ? [...hosts, host] : hosts;
      return {
        // An empty list turns the SDK's Host check off: for '*', and for a request without a
        // Host header (in-process app.request()), whose URL host the guard above has checked.
        allowedHosts:
          accepted.includes('*') || request.headers.get('host') === null ? [] : accepted,
        allowedOrigins: [
          ...allowedOrigins,
          ...accepted.flatMap((h) => [`http://${h}`, `https://${h}`]),
        ],
      };
    },
    maxBatchSize,
  });
  app.notFound(notFoundResponse);
  app.onError((error) => {
    if (!S2SPError.isInstance(error))
      logger.error('http: unexpected error', {
        name: error instanceof Error ? error.name : typeof error,
      });
    return s2spErrorToResponse(error);
  });

  const server: S2SPServer = {
    name: options.name,
    store: s2sp.store,
    s2sp,
    app,

    resourceTool(name, config, handler) {
      addTool(name, (mcp) => s2sp.registerResourceTool(mcp, name, config, handler));
      return server;
    },

    consumerTool(name, config, handler) {
      addTool(name, (mcp) => s2sp.registerConsumerTool(mcp, name, config, handler));
      return server;
    },

    use(configure) {
      registrations.push(configure);
      return server;
    },

    createMcpServer,

    async connect(transport) {
      const mcp = createMcpServer();
      await mcp.connect(transport);
      return mcp;
    },

    async listen(listenOptions) {
      const listener = await listenOnNode(
        listenOptions?.dataPlaneOnly ? dataPlaneApp.fetch : app.fetch,
        listenOptions,
      );
      advertisedUrl.addListener(listener.url, listener.hosts);
      listenerHosts.push(...listener.hosts);
      if (listener.wildcard && !resolved.publicUrl) {
        logger.warn(
          'listening on all interfaces without publicUrl: resource_urls will point at 127.0.0.1, reachable only from this machine, and /mcp answers only loopback names; set publicUrl (or allowedHosts)',
          { port: listener.port },
        );
      }
      const close = async () => {
        listeners.delete(handle);
        await listener.close();
      };
      const handle: ListeningServer = {
        url: listener.url,
        mcpUrl: `${listener.url}${mcpPath}`,
        port: listener.port,
        close,
        [Symbol.asyncDispose]: close,
      };
      listeners.add(handle);
      logger.info('listening', {
        mcp: listenOptions?.dataPlaneOnly ? 'not on this listener' : handle.mcpUrl,
        dataPlane: `${resolved.publicUrl ?? listener.url}/s2sp/data/`,
      });
      return handle;
    },

    async connectStdio() {
      const StdioServerTransport = await loadStdioTransport();
      return server.connect(new StdioServerTransport());
    },

    advertisedUrl: () => advertisedUrl.current(),

    mountA2S(build) {
      let sealed: { base: string; docs: Promise<readonly A2SCapability[]> } | undefined;
      mountA2S(app, () => {
        const base = advertisedUrl.current();
        if (!base)
          throw new S2SPError(
            'not_found',
            'No A2S capabilities until the server has an address: set publicUrl or call listen().',
          );
        if (sealed?.base !== base) sealed = { base, docs: Promise.resolve(build(base)) };
        return sealed.docs;
      });
      return server;
    },

    mountSlop(slopOptions) {
      mountSlop(app, server, { requestBodyTimeoutMs: bodyTimeoutMs, ...slopOptions });
      return server;
    },

    async close() {
      await Promise.all([...listeners].map((listener) => listener.close()));
      await s2sp.close();
    },
  };
  return server;
}
