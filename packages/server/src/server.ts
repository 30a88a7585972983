import { S2SPError } from '@s2sp/core';
import { operatorMust } from '@s2sp/core/advice';
import { parseOptions } from '@s2sp/core/options';
import { Hono } from 'hono';
import { type A2SCapability, mountA2S } from './a2s/index.js';
import { mountStatelessMcp } from './edge/mcp-endpoint.js';
import { createS2SPEdge } from './edge/s2sp-edge.js';
import { createConsoleLogger } from './logger.js';
import { loadStdio, McpServer } from './mcp-sdk.js';
import { createS2SPInternals } from './runtime/s2sp.js';
import { S2SPServerOptionsSchema } from './server-options.js';
import type { ListeningServer, S2SPServer, S2SPServerOptions } from './server-types.js';
import { mountSlop } from './slop.js';

export type { ListenOptions, ShutdownOptions } from './edge/node-listener.js';
export type {
  ListeningServer,
  S2SPServer,
  S2SPServerOptions,
  StdioConnection,
} from './server-types.js';

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
  // Every option, checked once here; the edge and the runtime below apply the same rules to
  // values that already passed them.
  const { mcpPath } = parseOptions(S2SPServerOptionsSchema, options, {
    factory: 'createS2SPServer',
  });
  // The one HTTP edge in front of /mcp, SLOP and A2S, checked before anything is created. Who may
  // reach them: the names this server has (publicUrl, trustedHosts, the addresses it listens on)
  // and the ones the operator adds; loopback names always.
  const logger = options.logger ?? createConsoleLogger({ name: options.name });
  const edge = createS2SPEdge({
    ...options,
    allowedHosts: [...(options.trustedHosts ?? []), ...(options.allowedHosts ?? [])],
    logger,
  });
  const {
    s2sp,
    options: resolved,
    advertisedUrl,
  } = createS2SPInternals({ ...options, logger }, options.name, 'createS2SPServer');
  const bodyTimeoutMs = resolved.requestBodyTimeoutMs;
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

  const app = edge.mount(new Hono());
  app.route('/', s2sp.dataPlane);
  const dataPlaneApp = new Hono();
  dataPlaneApp.route('/', s2sp.dataPlane);
  dataPlaneApp.notFound(edge.notFound);
  mountStatelessMcp(app, { path: mcpPath, createMcpServer, edge });

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
      const listener = await edge.listen(
        listenOptions?.dataPlaneOnly ? dataPlaneApp : app,
        listenOptions,
      );
      advertisedUrl.addListener(listener.url, listener.hosts);
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
        async shutdown(shutdownOptions) {
          await listener.shutdown(shutdownOptions);
          listeners.delete(handle);
        },
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
      // serveStdio picks the era from the client's opening and pins one McpServer to it.
      const { serveStdio } = await loadStdio();
      return serveStdio(createMcpServer);
    },

    advertisedUrl: () => advertisedUrl.current(),

    mountA2S(build) {
      let sealed: { base: string; docs: Promise<readonly A2SCapability[]> } | undefined;
      mountA2S(app, () => {
        const base = advertisedUrl.current();
        if (!base)
          throw new S2SPError(
            'not_found',
            `No A2S capabilities until the server has an address. ${operatorMust('set publicUrl or call listen()')}`,
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

    async shutdown(shutdownOptions) {
      await Promise.all([...listeners].map((listener) => listener.shutdown(shutdownOptions)));
      await s2sp.close();
    },
  };
  return server;
}
