/**
 * `createS2SPProxy`: S2SP in front of any MCP server, with no change to its code.
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import { parseOptions } from '@s2sp/core/options';
import { createConsoleLogger } from '@s2sp/server';
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
import { createNotificationHub, listChanges } from './downstream/notification-hub.js';
import { sessionRelayTarget } from './downstream/relay-target.js';
import { createResourceHolds } from './downstream/resource-holds.js';
import { createSubscriptions } from './downstream/subscriptions.js';
import { eventSink } from './event-sink.js';
import { type Notification, type Server, StdioServerTransport, type Tool } from './mcp-sdk.js';
import { runtimeOptionsOf, S2SPProxyOptionsSchema } from './proxy-options.js';
import type { ProxyListener, S2SPProxy, S2SPProxyOptions } from './proxy-types.js';
import { createLearnedColumns } from './tables/learned-columns.js';
import {
  createS2SPCall,
  GATEWAY_PARTS,
  S2SP_PARAMETERS,
  type S2SPCall,
  type ToolCall,
} from './tables/s2sp-call.js';
import { createTableTools, type DeclaredTool } from './tables/table-tools.js';
import { createToolState } from './tables/tool-state.js';
import type { RelayTarget } from './upstream/client-relay.js';
import { createUpstream, type Upstream, type UpstreamOptions } from './upstream/upstream.js';
import { createUpstreamPool } from './upstream/upstream-pool.js';
import { PROXY_VERSION } from './version.js';

/** A 2025-era downstream session, as the owner of an upstream session (its server once made). */
interface SessionOwner {
  readonly id: number;
  server: Server | undefined;
}

/** What an upstream session tells about a notification it received. */
type NotificationHandler = NonNullable<UpstreamOptions['onNotification']>;

/** Whose upstream session it is: a 2025-era session, or a 2026-07-28 client (its `clientKey`). */
type Owner = SessionOwner | string;

/**
 * Creates an S2SP proxy in front of an MCP server. A composition root: each part is built after
 * everything it calls, and a part that reports to one built later does so through an event sink
 * (`event-sink.ts`) the later part listens on.
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

  const learned = createLearnedColumns();
  // A static bearer token's holder is its token (a keyed hash), never its position in the list.
  const clientKeys = createClientKeys(input.auth?.bearerTokens ?? [], GATEWAY_PARTS);
  // Declared tools from the --state file: known until the upstream lists its tools.
  const remembered: Record<string, DeclaredTool> = {};
  const tables = createTableTools({
    include: options.tableTools,
    exclude: options.excludeTools,
    detect: options.detectTables,
    alwaysLoad: options.alwaysLoadTableTools,
    describe: (description) => s2sp().describe(description),
    parameters: () => S2SP_PARAMETERS,
    measures: GATEWAY_PARTS,
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
  const forgetTools = () => {
    listing = undefined;
    tables.forget();
  };
  const learnTool = async (name: string, upstream: Upstream) => {
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
  };

  // The downstream sessions (2025 era), and the client (clientKey) each serves once it has listed
  // or called a tool.
  const downstream = new Set<Server>();
  const clientOf = new WeakMap<object, string>();
  // What reaches the 2026-07-28 clients' listen streams, which the HTTP endpoint (built last)
  // holds; nothing is sent there before the upstream starts.
  const toListeners = eventSink<[notification: Notification, client?: string]>();
  // What the start-up session reports while it is every client's (sharedUpstream): for the hub
  // and the subscriptions, which are built on that session.
  const sharedNotification = eventSink<Parameters<NotificationHandler>>();
  const sharedRestarted = eventSink<[]>();
  let restarts = 0;
  const connection = {
    target: options.upstream,
    logger,
    clientInfo: { name: 's2sp-proxy', version: PROXY_VERSION },
    requestTimeoutMs: options.timeoutSeconds * 1000,
    startupTimeoutMs: options.startupTimeoutSeconds * 1000,
    maxResultBytes: options.maxUpstreamResultBytes,
    restartDelayMs: options.restartDelayMs,
    maxRestartDelayMs: 30_000,
    createClientLimit: GATEWAY_PARTS.createClientConcurrencyLimit,
    ...(options.onUpstreamStderr && { onStderr: options.onUpstreamStderr }),
  };
  const shared = options.sharedUpstream;

  // The session the proxy opens at start, to learn what the upstream declares and lists. With
  // sharedUpstream it is every client's; else it closes once it has listed the tools, and each
  // client gets a session of its own (the pool below).
  const startup = createUpstream({
    ...connection,
    onNotification: (notification, origin) => {
      if (notification.method === 'notifications/tools/list_changed') forgetTools();
      if (shared) sharedNotification.emit(notification, origin);
    },
    // Shared by every client, the session's requests that no call relates reach a client only
    // while it is the one connected.
    unrelated: () => {
      if (!shared || downstream.size !== 1) return undefined;
      const [only] = downstream;
      return only && sessionRelayTarget(only, clientOf.get(only) ?? 'the sole session');
    },
    onRestarted: () => {
      restarts++;
      forgetTools();
      if (shared) sharedRestarted.emit();
    },
  });
  const subscriptions = createSubscriptions(startup);
  const hub = createNotificationHub({
    listeners: toListeners.emit,
    servers: () => downstream,
    logger,
    clientOf: (server) => clientOf.get(server),
    setUpstreamLevel: (level) => startup.request({ method: 'logging/setLevel', params: { level } }),
  });
  sharedNotification.on((notification, origin) => hub.relay(notification, origin, subscriptions));
  sharedRestarted.on(() => {
    hub.restarted(startup.capabilities());
    void subscriptions.renew();
  });

  // Whose upstream session it is: a 2025-era downstream session, or a 2026-07-28 client.
  let owners = 0;
  const ownerTarget = (owner: Owner): RelayTarget | undefined =>
    typeof owner === 'string' || !owner.server
      ? undefined
      : sessionRelayTarget(owner.server, clientOf.get(owner.server) ?? `session ${owner.id}`);
  /** What an owner's upstream session sends: to the request it came with, else to the owner. */
  const toOwner = (owner: Owner, notification: Notification, caller: object | undefined) => {
    if (notification.method === 'notifications/tools/list_changed') forgetTools();
    if (typeof owner !== 'string') {
      if (owner.server) hub.deliver(notification, owner.server);
      return;
    }
    const broadcast =
      notification.method.endsWith('/list_changed') ||
      notification.method === 'notifications/resources/updated';
    if (broadcast) toListeners.emit(notification, owner);
    else if (caller) hub.deliver(notification, caller as Server);
    else
      logger.debug('upstream notification not relayed: no request of its client open', {
        method: notification.method,
      });
  };
  // Who wants which resource on each owner's upstream session (the one table, shared).
  const holds = createResourceHolds<Owner>({
    ...(shared && { shared: subscriptions }),
    upstreamOf: (owner) => upstreamOf(owner),
    canSubscribe: () => startup.capabilities().resources?.subscribe === true,
    logger,
  });
  const pool = createUpstreamPool<Owner>(
    {
      open: (owner) =>
        createUpstream({
          ...connection,
          onNotification: (notification, origin) => toOwner(owner, notification, origin.session),
          // Everything on this session is its owner's: a request no call relates goes to the
          // newest call in flight, else to the owner's session (a 2026-07-28 client has none).
          unrelated: (_method, newest) => newest ?? ownerTarget(owner),
          onRestarted: () => {
            restarts++;
            forgetTools();
            for (const notification of listChanges(startup.capabilities()))
              toOwner(owner, notification, undefined);
            void holds.renew(owner);
          },
        }),
      maxSessions: options.maxUpstreamSessions,
      idleMs: options.upstreamIdleSeconds * 1000,
      logger,
      onClosed: (owner) => holds.forget(owner),
      // A client listening for resource updates keeps its session while its stream is open.
      inUse: (owner) => holds.inUse(owner),
    },
    startup,
  );
  /** The upstream a downstream session or a 2026-07-28 client talks to. */
  const upstreamOf = (owner: Owner): Upstream =>
    shared ? startup : pool.lease(owner, { idleClose: typeof owner === 'string' });

  const common = {
    callsPerClient: GATEWAY_PARTS.createClientConcurrencyLimit({
      concurrency: options.maxCallsPerClient,
      what: 'requests of this client',
    }),
    tables,
    s2sp,
    parts: GATEWAY_PARTS,
    logger,
    clientKey: (extra: ToolCall) => clientKeys.of(extra),
    maxTextLength: options.maxResultChars,
    toolsChanged: (client: string) => {
      hub.toolsChangedFor(client);
      state?.changed();
    },
    seenClient: (server: object, client: string) => clientOf.set(server, client),
    rounds: createInputRounds({ timeoutMs: options.timeoutSeconds * 1000 }),
  };
  /** What the downstream server of one owner works with: its own upstream session. */
  const contextOf = (owner: Owner): DownstreamContext => {
    const upstream = upstreamOf(owner);
    return {
      ...common,
      upstream,
      learnTool: (name) => learnTool(name, upstream),
      // Who wants which URI is kept per upstream session (see resource-holds.ts). Shared, the
      // proxy also keeps each session's log level; on a session of its own, a client's level is
      // its session's.
      subscribe: (session, uri) => holds.tableOf(owner).subscribe(session, uri),
      unsubscribe: (session, uri) => holds.tableOf(owner).unsubscribe(session, uri),
      setLogLevel: shared
        ? (session, level) => hub.setLevel(session, level)
        : async (session, level) => {
            await upstream.request({ method: 'logging/setLevel', params: { level } });
            hub.filterAt(session, level);
          },
    };
  };
  const serverInfo = () => startup.serverInfo() ?? { name: 's2sp-proxy', version: PROXY_VERSION };

  const ownerOf = new WeakMap<Server, SessionOwner>();
  const sessionClosed = (server: Server) => {
    downstream.delete(server);
    hub.closed(server);
    void subscriptions.drop(server);
    const owner = ownerOf.get(server);
    if (owner && !shared) {
      holds.forget(owner);
      void pool.release(owner);
    }
  };
  const newServer = (): Server => {
    const owner: SessionOwner = { id: ++owners, server: undefined };
    const server = createDownstreamServer(contextOf(owner), serverInfo());
    owner.server = server;
    ownerOf.set(server, owner);
    downstream.add(server);
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      sessionClosed(server);
    };
    return server;
  };

  const app = edge.mount(new Hono());
  // The data plane is capability-based (the edge lets /s2sp/* through without a bearer token).
  app.all('/s2sp/*', (c) => (seam ? seam.dataPlane.fetch(c.req.raw, c.env) : edge.notFound(c)));
  const sessions: McpSessions = mountMcpSessions(app, {
    path: '/mcp',
    createServer: newServer,
    createModernServer: (client) => createModernDownstreamServer(contextOf(client), serverInfo()),
    onClosed: sessionClosed,
    maxSessions: options.maxSessions,
    maxSessionsPerClient: options.maxSessionsPerClient,
    idleMs: 60 * 60 * 1000,
    edge,
    createModernMcp: GATEWAY_PARTS.createModernMcp,
    holdResources: (client, uris) => holds.hold(client, uris),
  });
  toListeners.on((notification, client) => sessions.listeners(notification, client));
  const listeners: ProxyListener[] = [];
  // Listed once at start, so a tool whose outputSchema cannot be combined with S2SP's is reported
  // now rather than at its first use; without publicUrl, once listen() gives the data plane its
  // address (listing describes tools with it). Then, unless it is every client's, the start-up
  // session has done its work.
  let learnedAtStart: Promise<void> | undefined;
  const learnAtStart = () =>
    (learnedAtStart ??= (async () => {
      await learnTool('', startup);
      if (!shared) await startup.close();
    })());

  return {
    app,
    async start() {
      if (state) {
        const loaded = await state.load(learned);
        Object.assign(remembered, loaded.declared);
        if (loaded.secret !== undefined) clientKeys.useSecret(loaded.secret);
      }
      await startup.start();
      if (seam) await learnAtStart();
    },
    upstreamRestarts: () => restarts,
    upstreamSessions: () => (shared ? 1 : pool.size()),

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
      await learnAtStart();
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
      common.rounds.close();
      await sessions.close();
      await Promise.all([...downstream].map((server) => server.close().catch(() => {})));
      await Promise.all([...listeners].map((listener) => listener.close()));
      await pool.close();
      await startup.close();
      await seam?.close();
      await state?.flush();
    },
  };
}
