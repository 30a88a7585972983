import { DATA_PATH_PREFIX, HEALTH_PATH, S2SPError } from '@s2sp/core';
import { positiveOption } from '@s2sp/core/internal';
import { Hono } from 'hono';
import { type A2SCapability, mountA2S } from './a2s.js';
import { bearerAuth } from './edge/bearer-auth.js';
import { browserGuard, isAllowedHost, requestHost } from './edge/browser-guard.js';
import { notFoundResponse, s2spErrorToResponse } from './edge/error-response.js';
import { mountStatelessMcp } from './edge/mcp-endpoint.js';
import { listenOnNode } from './edge/node-listener.js';
import { loadStdioTransport, McpServer } from './mcp-sdk.js';
import { createS2SPInternals } from './s2sp.js';
import type { ListeningServer, S2SPServer, S2SPServerOptions } from './server-types.js';
import { mountSlop } from './slop.js';

export type { ListenOptions } from './edge/node-listener.js';
export type { ListeningServer, S2SPServer, S2SPServerOptions } from './server-types.js';

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
        { headersTimeoutMs: resolved.requestBodyTimeoutMs },
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
