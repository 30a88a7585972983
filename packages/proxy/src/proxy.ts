/**
 * `createS2SPProxy`: S2SP in front of any MCP server, with no change to its code.
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import { parseOptions } from '@s2sp/core/options';
import { createClientConcurrencyLimit, createConsoleLogger } from '@s2sp/server';
import { createS2SPEdge } from '@s2sp/server/http';
import { Hono } from 'hono';
import { createClientKeys } from './client-keys.js';
import {
  createDownstreamServer,
  createModernDownstreamServer,
  type DownstreamContext,
} from './downstream/downstream-server.js';
import { type McpSessions, mountMcpSessions } from './downstream/http-sessions.js';
import { createInputRounds } from './downstream/input-rounds.js';
import { createNotificationHub } from './downstream/notification-hub.js';
import { sessionRelayTarget } from './downstream/relay-target.js';
import { createSubscriptions } from './downstream/subscriptions.js';
import { type Server, StdioServerTransport, type Tool } from './mcp-sdk.js';
import { runtimeOptionsOf, S2SPProxyOptionsSchema } from './proxy-options.js';
import type { ProxyListener, S2SPProxy, S2SPProxyOptions } from './proxy-types.js';
import { createLearnedColumns } from './tables/learned-columns.js';
import { createS2SPCall, S2SP_PARAMETERS, type S2SPCall } from './tables/s2sp-call.js';
import { createTableTools, type DeclaredTool } from './tables/table-tools.js';
import { createToolState } from './tables/tool-state.js';
import { createUpstream } from './upstream/upstream.js';
import { PROXY_VERSION } from './version.js';

/**
 * Creates an S2SP proxy in front of an MCP server.
 *
 * @throws S2SPError `invalid_config` for any option that cannot work (`publicUrl`, a budget or
 *   limit, an edge option such as `auth`, `allowedHosts` or `requestBodyTimeoutMs`)
 *
 * @example
 * ```ts
 * const proxy = createS2SPProxy({ upstream: { kind: 'stdio', command: 'mcp-server-postgres', args: [dbUrl] } });
 * await proxy.start();
 * const { mcpUrl } = await proxy.listen({ port: 3010 });
 * ```
 */
export function createS2SPProxy(input: S2SPProxyOptions): S2SPProxy {
  // Every option checked here, not when listen() opens the data plane, so a bad one fails at once.
  const options = parseOptions(S2SPProxyOptionsSchema, input, { factory: 'createS2SPProxy' });
  const logger = options.logger ?? createConsoleLogger({ name: 's2sp-proxy' });
  // The servers' HTTP edge: Host and Origin checks on every bind, bearer auth, MCP body caps,
  // body and header read timeouts, the JSON error body and the Node listener. Its options passed
  // the same rules above; `auth` is the caller's own object, so a verifier keeps its identity.
  const { publicUrl } = options;
  const edge = createS2SPEdge({ ...options, auth: input.auth, logger });
  let seam: S2SPCall | undefined;
  const openSeam = (base: string) => {
    seam ??= createS2SPCall({
      ...runtimeOptionsOf(options),
      requestBodyTimeoutMs: edge.options.requestBodyTimeoutMs,
      publicUrl: base,
      logger,
    });
    return seam;
  };
  if (publicUrl) openSeam(publicUrl);
  const s2sp = () => {
    if (seam) return seam;
    throw new S2SPError(
      'invalid_config',
      'The proxy has no address for its data plane yet: call listen() or set publicUrl.',
    );
  };

  const downstream = new Set<Server>();
  // The client (clientKey) each session serves, once it has listed or called a tool.
  const clientOf = new WeakMap<object, string>();
  const hub = createNotificationHub({
    // The HTTP endpoint (below) holds the 2026-07-28 clients' listen streams; the hub is made
    // first, and nothing reaches it before the upstream starts.
    listeners: (notification) => sessions.listeners(notification),
    servers: () => downstream,
    logger,
    clientOf: (server) => clientOf.get(server),
    setUpstreamLevel: (level) =>
      upstream.request({ method: 'logging/setLevel', params: { level } }),
  });
  const upstream = createUpstream({
    target: options.upstream,
    logger,
    clientInfo: { name: 's2sp-proxy', version: PROXY_VERSION },
    requestTimeoutMs: options.timeoutSeconds * 1000,
    maxResultBytes: options.maxUpstreamResultBytes,
    restartDelayMs: options.restartDelayMs,
    maxRestartDelayMs: 30_000,
    onNotification: (notification, origin) => {
      if (notification.method === 'notifications/tools/list_changed') forgetTools();
      hub.relay(notification, origin, subscriptions);
    },
    soleClient: () => {
      if (downstream.size !== 1) return undefined;
      const [only] = downstream;
      return only && sessionRelayTarget(only, clientOf.get(only) ?? 'the sole session');
    },
    onRestarted: () => {
      forgetTools();
      hub.restarted(upstream.capabilities());
      void subscriptions.renew();
    },
    ...(options.onUpstreamStderr && { onStderr: options.onUpstreamStderr }),
  });
  const subscriptions = createSubscriptions(upstream);
  const learned = createLearnedColumns();
  // A static bearer token's holder is its token (a keyed hash), never its position in the list.
  const clientKeys = createClientKeys(input.auth?.bearerTokens ?? []);
  // Declared tools from the --state file: known until the upstream lists its tools.
  const remembered: Record<string, DeclaredTool> = {};
  const tables = createTableTools({
    include: options.tableTools,
    exclude: options.excludeTools,
    detect: options.detectTables,
    alwaysLoad: options.alwaysLoadTableTools,
    describe: (description) => s2sp().describe(description),
    parameters: () => S2SP_PARAMETERS,
    learned,
    remembered,
    logger,
  });
  const state =
    options.stateFile === undefined
      ? undefined
      : createToolState({ path: options.stateFile, logger }, () => ({
          declared: { ...remembered, ...tables.declared() },
          learned,
          secret: clientKeys.secret(),
        }));
  // A call can come before any tools/list (or after the upstream's list changed): list once so
  // the registry knows each tool's own parameters and outputSchema.
  let listing: Promise<void> | undefined;
  function forgetTools() {
    listing = undefined;
    tables.forget();
  }
  async function learnTool(name: string) {
    if (tables.knows(name) || !upstream.capabilities().tools) return;
    listing ??= (async () => {
      let cursor: string | undefined;
      for (let page = 0; page < 100; page++) {
        const result = (await upstream.request({
          method: 'tools/list',
          params: cursor === undefined ? {} : { cursor },
        })) as { tools?: Tool[]; nextCursor?: string };
        tables.decorate(result.tools ?? [], '');
        cursor = result.nextCursor;
        if (cursor === undefined) {
          state?.changed();
          return;
        }
      }
    })().catch((error: unknown) => {
      listing = undefined;
      logger.warn('upstream: tools/list failed', { error: (error as Error).message.slice(0, 200) });
    });
    await listing;
  }
  const context: DownstreamContext = {
    upstream,
    callsPerClient: createClientConcurrencyLimit({
      concurrency: options.maxCallsPerClient,
      what: 'tool calls of this client',
    }),
    tables,
    s2sp,
    logger,
    clientKey: (extra) => clientKeys.of(extra),
    maxTextLength: options.maxResultChars,
    toolsChanged: (client) => {
      hub.toolsChangedFor(client);
      state?.changed();
    },
    seenClient: (server, client) => clientOf.set(server, client),
    learnTool,
    subscribe: (session, uri) => subscriptions.subscribe(session, uri),
    unsubscribe: (session, uri) => subscriptions.unsubscribe(session, uri),
    setLogLevel: (session, level) => hub.setLevel(session, level),
    rounds: createInputRounds({ timeoutMs: options.timeoutSeconds * 1000 }),
  };

  const newServer = (): Server => {
    const info = upstream.serverInfo() ?? { name: 's2sp-proxy', version: PROXY_VERSION };
    const server = createDownstreamServer(context, info);
    downstream.add(server);
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      downstream.delete(server);
      hub.closed(server);
      void subscriptions.drop(server);
    };
    return server;
  };

  const app = edge.mount(new Hono());
  // The data plane is capability-based (the edge lets /s2sp/* through without a bearer token).
  app.all('/s2sp/*', (c) => (seam ? seam.dataPlane.fetch(c.req.raw, c.env) : edge.notFound(c)));
  const sessions: McpSessions = mountMcpSessions(app, {
    path: '/mcp',
    createServer: newServer,
    createModernServer: () =>
      createModernDownstreamServer(
        context,
        upstream.serverInfo() ?? { name: 's2sp-proxy', version: PROXY_VERSION },
      ),
    onClosed: (server) => {
      downstream.delete(server);
      hub.closed(server);
      void subscriptions.drop(server);
    },
    maxSessions: options.maxSessions,
    maxSessionsPerClient: options.maxSessionsPerClient,
    idleMs: 60 * 60 * 1000,
    edge,
  });
  const listeners: ProxyListener[] = [];

  return {
    app,
    async start() {
      if (state) {
        const loaded = await state.load(learned);
        Object.assign(remembered, loaded.declared);
        if (loaded.secret !== undefined) clientKeys.useSecret(loaded.secret);
      }
      await upstream.start();
      // Listed once at start, so a tool whose outputSchema cannot be combined with S2SP's is
      // reported now rather than at its first use; without publicUrl, once listen() gives the
      // data plane its address (listing describes tools with it).
      if (seam) await learnTool('');
    },
    upstreamRestarts: () => upstream.restarts(),

    async listen({ port = 0, host = '127.0.0.1' } = {}) {
      const bound = await edge.listen(app, { port, host });
      // Bound to every interface: the loopback address (bound.url) is the one sure to work.
      if (bound.wildcard && !publicUrl) {
        logger.warn(
          'listening on all interfaces without --public-url: resource_urls will point at 127.0.0.1, reachable only from this machine, and /mcp answers only loopback names; set --public-url (or --allowed-host)',
          { port: bound.port },
        );
      }
      openSeam(publicUrl ?? bound.url);
      await learnTool('');
      const close = async () => {
        const index = listeners.indexOf(listener);
        if (index < 0) return;
        listeners.splice(index, 1);
        await bound.close();
      };
      const listener: ProxyListener = {
        url: bound.url,
        mcpUrl: `${bound.url}/mcp`,
        port: bound.port,
        close,
        async shutdown(shutdownOptions) {
          await bound.shutdown(shutdownOptions);
          await close();
        },
        [Symbol.asyncDispose]: close,
      };
      listeners.push(listener);
      logger.info('listening', {
        mcp: listener.mcpUrl,
        dataPlane: `${publicUrl ?? bound.url}/s2sp/data/`,
      });
      return listener;
    },

    async connect(transport) {
      const server = newServer();
      await server.connect(transport);
      return server;
    },

    connectStdio() {
      return this.connect(new StdioServerTransport());
    },

    async shutdown(shutdownOptions) {
      // The listeners drain first, while sessions and the upstream still serve the running calls.
      await Promise.all([...listeners].map((listener) => listener.shutdown(shutdownOptions)));
      await this.close();
    },

    async close() {
      context.rounds.close();
      await sessions.close();
      await Promise.all([...downstream].map((server) => server.close().catch(() => {})));
      await Promise.all([...listeners].map((listener) => listener.close()));
      await upstream.close();
      await seam?.close();
      await state?.flush();
    },
  };
}
