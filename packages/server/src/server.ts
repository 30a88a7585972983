import {
  type BodyStore,
  createMemoryStore,
  DEFAULT_TTL_SECONDS,
  normalizePublicUrl,
  S2SPError,
} from '@s2sp/core';
import { Hono } from 'hono';
import type { z } from 'zod';
import { type A2SCapability, mountA2S } from './a2s.js';
import {
  type ConsumerFetchOptions,
  type ConsumerToolConfig,
  type ConsumerToolHandler,
  consumerParameters,
  consumerToolDescription,
  createConsumerToolCallback,
} from './consumer-tool.js';
import { mountDataPlane } from './http/data-plane.js';
import { notFoundResponse, s2spErrorToResponse } from './http/error-response.js';
import { createConsoleLogger, type Logger } from './logger.js';
import {
  loadStdioTransport,
  McpServer,
  type ToolExtra,
  type Transport,
  WebStandardStreamableHTTPServerTransport,
} from './mcp-sdk.js';
import {
  createResourceToolCallback,
  type ResourceToolConfig,
  type ResourceToolHandler,
  resourceParameters,
  resourceToolDescription,
} from './resource-tool.js';
import { mountSlop, type SlopOptions } from './slop.js';

/** Options for {@link createS2SPServer}. */
export interface S2SPServerOptions {
  /** The MCP server name. */
  readonly name: string;
  /** The MCP server version. */
  readonly version: string;
  /** MCP `instructions` sent to clients at initialisation. */
  readonly instructions?: string;
  /**
   * Where async-mode tables are cached. Default: an in-memory store (one process). Pass a shared
   * store, such as `@s2sp/cache-redis`, to run several replicas.
   */
  readonly store?: BodyStore;
  /** Byte budget of the default in-memory store. Default 256 MiB. Ignored with `store`. */
  readonly maxCacheBytes?: number;
  /** Lifetime of a `resource_url`, in seconds. Default 600. */
  readonly ttlSeconds?: number;
  /**
   * The base URL advertised in `resource_url`s (`https://data.example.com`, a path prefix is
   * kept). Set it whenever consumers reach this server through another address than the one it
   * listens on. Without it, the request's own host is used only when it is trusted (the listen
   * address, `localhost`, or `trustedHosts`) — never an arbitrary `Host` header — and otherwise
   * the listen address.
   */
  readonly publicUrl?: string;
  /** Extra `Host` values (`host` or `host:port`) whose requests may set the advertised base. */
  readonly trustedHosts?: readonly string[];
  /**
   * Largest sync-mode result, in bytes. The body travels on through the agent as `body_data`,
   * and MCP transports cap messages (Streamable HTTP: 4 MiB requests; stdio: 10 MB), so a larger
   * result gets an error suggesting async mode. Default 3 MiB.
   */
  readonly maxSyncBytes?: number;
  /** Largest data-plane request body. Default 1 MiB. */
  readonly maxDataRequestBytes?: number;
  /** Largest MCP request body over Streamable HTTP. Default 4 MiB (the SDK's default). */
  readonly maxMcpRequestBytes?: number;
  /** Path of the Streamable HTTP endpoint. Default `/mcp`. */
  readonly mcpPath?: string;
  /** How consumer tools fetch from resource servers (allow-list, timeout, size cap). */
  readonly consumer?: ConsumerFetchOptions;
  /** Where to log. Default: a console logger at `info` on standard error. Never logs tokens. */
  readonly logger?: Logger;
}

/** Options for {@link S2SPServer.listen}. */
export interface ListenOptions {
  /** Port; 0 (the default) picks a free one. */
  readonly port?: number;
  /** Interface to bind. Default `127.0.0.1`. */
  readonly host?: string;
}

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

/** An S2SP server: MCP tools with a data plane. Created by {@link createS2SPServer}. */
export interface S2SPServer {
  /** The MCP server name. */
  readonly name: string;
  /** The body store this server caches async results in. */
  readonly store: BodyStore;
  /**
   * A Hono app serving the data plane (`/s2sp/data/:token`, `/s2sp/health`) and the stateless
   * Streamable HTTP MCP endpoint (`/mcp`). Serve it with any Hono adapter, or add routes.
   */
  readonly app: Hono;
  /**
   * Adds a resource tool (PROTOCOL §2): the handler returns rows; S2SP adds `abstract_domains`
   * and `mode`, and does projection, `_row_id`, caching and the response.
   * @throws S2SPError `invalid_config` on a duplicate name or a reserved parameter name
   */
  resourceTool<TShape extends z.ZodRawShape = Record<never, never>>(
    name: string,
    config: ResourceToolConfig<TShape>,
    handler: ResourceToolHandler<TShape>,
  ): S2SPServer;
  /**
   * Adds a consumer tool (PROTOCOL §4): S2SP adds `abstract_data`, `resource_url`, `body_data`
   * and `column_mapping`, fetches and merges, and hands the handler the full rows.
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
   * for agents that speak plain HTTP instead of MCP. Opt-in; see {@link mountSlop}.
   */
  mountSlop(options?: SlopOptions): S2SPServer;
  /**
   * The base URL this server advertises: `publicUrl`, else the address of its first `listen()`,
   * else `undefined`.
   */
  advertisedUrl(): string | undefined;
  /**
   * Publishes A2S capability documents at `/.well-known/a2s/capabilities` (see {@link mountA2S}).
   * `build` gets the server's advertised base URL, so documents can name the real endpoints; it
   * runs on the first request and again only if that URL changes. Until the server has an
   * address the routes answer 404.
   */
  mountA2S(
    build: (baseUrl: string) => readonly A2SCapability[] | Promise<readonly A2SCapability[]>,
  ): S2SPServer;
  /** Closes every listener, and the store when the server created it. */
  close(): Promise<void>;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new S2SPError(
      'invalid_config',
      `${name} must be a positive number, got ${String(value)}.`,
    );
  }
  return value;
}

function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * Creates an S2SP server: an MCP server whose resource tools split tables into a control plane
 * and a data plane, and whose consumer tools fetch and merge the data plane.
 *
 * MCP over HTTP is stateless: every request gets a fresh `McpServer` (tool registration is
 * replayed, which is cheap), so any number of replicas can sit behind a load balancer when they
 * share a store. There are no MCP sessions and no server-initiated streams (GET on `/mcp` is 405).
 *
 * @param options - name, version, store, TTL, addresses and limits
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
  const ttlMs = Math.round(positive('ttlSeconds', options.ttlSeconds, DEFAULT_TTL_SECONDS) * 1000);
  const maxSyncBytes = positive('maxSyncBytes', options.maxSyncBytes, 3 * 1024 * 1024);
  const maxMcpRequestBytes = positive(
    'maxMcpRequestBytes',
    options.maxMcpRequestBytes,
    4 * 1024 * 1024,
  );
  const publicUrl =
    options.publicUrl === undefined ? undefined : normalizePublicUrl(options.publicUrl);
  const mcpPath = options.mcpPath ?? '/mcp';
  const logger = options.logger ?? createConsoleLogger({ name: options.name });
  const ownsStore = options.store === undefined;
  const store =
    options.store ??
    createMemoryStore(
      options.maxCacheBytes === undefined ? {} : { maxBytes: options.maxCacheBytes },
    );

  const registrations: ((mcp: McpServer) => void)[] = [];
  const toolNames = new Set<string>();
  const trustedHosts = new Set((options.trustedHosts ?? []).map((h) => h.toLowerCase()));
  const listeners: ListeningServer[] = [];
  let listenBase: string | undefined;

  const claimName = (name: string) => {
    if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]{1,128}$/.test(name)) {
      throw new S2SPError(
        'invalid_config',
        `Tool name ${JSON.stringify(name)} is not valid: use 1-128 letters, digits, "_", "-" or ".".`,
      );
    }
    if (toolNames.has(name))
      throw new S2SPError(
        'invalid_config',
        `A tool named "${name}" is already registered on this server.`,
      );
    toolNames.add(name);
  };

  const resolveBaseUrl = (extra: ToolExtra): string => {
    if (publicUrl) return publicUrl;
    const url = extra.requestInfo?.url;
    if (url) {
      const host = url.host.toLowerCase();
      if (trustedHosts.has(host) || trustedHosts.has(url.hostname.toLowerCase())) return url.origin;
    }
    if (listenBase) return listenBase;
    throw new S2SPError(
      'invalid_config',
      'This server has no address for its data plane, so it cannot return a resource_url. The operator must set publicUrl or serve the data plane with listen(). Until then, call the tool with mode="sync".',
    );
  };

  const createMcpServer = (): McpServer => {
    const mcp = new McpServer(
      { name: options.name, version: options.version },
      options.instructions ? { instructions: options.instructions } : {},
    );
    for (const register of registrations) register(mcp);
    return mcp;
  };

  const app = new Hono();
  mountDataPlane(app, {
    store,
    logger,
    ...(options.maxDataRequestBytes !== undefined && {
      maxRequestBytes: options.maxDataRequestBytes,
    }),
  });
  app.post(mcpPath, async (c) => {
    const mcp = createMcpServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: maxMcpRequestBytes,
    });
    try {
      await mcp.connect(transport);
      // With JSON responses the body is complete when handleRequest resolves, so closing here
      // cannot cut a stream short.
      return await transport.handleRequest(c.req.raw);
    } finally {
      await transport.close();
      await mcp.close();
    }
  });
  // Stateless: no standalone SSE stream to GET, no session to DELETE.
  app.on(['GET', 'DELETE'], mcpPath, (c) =>
    c.json(
      {
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: 'Method not allowed: this MCP server is stateless; use POST.',
        },
        id: null,
      },
      405,
      { allow: 'POST' },
    ),
  );
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
    store,
    app,

    resourceTool(name, config, handler) {
      claimName(name);
      const callback = createResourceToolCallback(name, config, handler, {
        store,
        ttlMs,
        maxSyncBytes,
        logger,
        resolveBaseUrl,
      });
      const description = resourceToolDescription(config.description, ttlMs, config.rowSchema);
      const inputSchema = { ...(config.inputSchema ?? {}), ...resourceParameters };
      registrations.push((mcp) => {
        mcp.registerTool(
          name,
          {
            description,
            inputSchema,
            ...(config.title && { title: config.title }),
            ...(config.annotations && { annotations: config.annotations }),
          },
          callback as unknown as Parameters<McpServer['registerTool']>[2],
        );
      });
      return server;
    },

    consumerTool(name, config, handler) {
      claimName(name);
      const callback = createConsumerToolCallback(name, config, handler, {
        fetch: options.consumer ?? {},
        logger,
      });
      const inputSchema = { ...(config.inputSchema ?? {}), ...consumerParameters };
      registrations.push((mcp) => {
        mcp.registerTool(
          name,
          {
            description: consumerToolDescription(config.description),
            inputSchema,
            ...(config.title && { title: config.title }),
            ...(config.annotations && { annotations: config.annotations }),
          },
          callback as unknown as Parameters<McpServer['registerTool']>[2],
        );
      });
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

    async listen({ port = 0, host = '127.0.0.1' } = {}) {
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new S2SPError(
          'invalid_config',
          `port must be a whole number from 0 to 65535, got ${String(port)}.`,
        );
      }
      const { serve } = await import('@hono/node-server');
      const http = serve({ fetch: app.fetch, port, hostname: host });
      await new Promise<void>((resolve, reject) => {
        http.once('listening', resolve);
        http.once('error', (error: NodeJS.ErrnoException) => {
          const reason =
            error.code === 'EADDRINUSE'
              ? `port ${port} is already in use; pick another PORT`
              : error.message;
          reject(
            new S2SPError('invalid_config', `Cannot listen on ${host}:${port}: ${reason}.`, {
              cause: error,
            }),
          );
        });
      });
      const address = http.address();
      const boundPort = typeof address === 'object' && address ? address.port : port;
      const advertisedHost = WILDCARD_HOSTS.has(host) ? '127.0.0.1' : host;
      const url = `http://${formatHost(advertisedHost)}:${boundPort}`;
      listenBase ??= url;
      for (const name of [
        `${formatHost(host)}:${boundPort}`,
        `127.0.0.1:${boundPort}`,
        `localhost:${boundPort}`,
        `[::1]:${boundPort}`,
      ]) {
        trustedHosts.add(name.toLowerCase());
      }
      if (WILDCARD_HOSTS.has(host) && !publicUrl) {
        logger.warn(
          'listening on all interfaces without publicUrl: resource_urls will point at 127.0.0.1, reachable only from this machine; set publicUrl',
          { port: boundPort },
        );
      }
      let closed = false;
      const close = async () => {
        if (closed) return;
        closed = true;
        listeners.splice(listeners.indexOf(handle), 1);
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          if ('closeAllConnections' in http) http.closeAllConnections();
        });
      };
      const handle: ListeningServer = {
        url,
        mcpUrl: `${url}${mcpPath}`,
        port: boundPort,
        close,
        [Symbol.asyncDispose]: close,
      };
      listeners.push(handle);
      logger.info('listening', { mcp: handle.mcpUrl, dataPlane: `${publicUrl ?? url}/s2sp/data/` });
      return handle;
    },

    async connectStdio() {
      const StdioServerTransport = await loadStdioTransport();
      return server.connect(new StdioServerTransport());
    },

    advertisedUrl() {
      return publicUrl ?? listenBase;
    },

    mountA2S(build) {
      let sealed: { base: string; docs: Promise<readonly A2SCapability[]> } | undefined;
      mountA2S(app, () => {
        const base = publicUrl ?? listenBase;
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
      mountSlop(app, server, slopOptions);
      return server;
    },

    async close() {
      await Promise.all([...listeners].map((listener) => listener.close()));
      if (ownsStore) await store.close();
    },
  };
  return server;
}
