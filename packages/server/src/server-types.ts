import type { BodyStore } from '@s2sp/core/store';
import type { Hono } from 'hono';
import type { z } from 'zod';
import type { A2SCapability } from './a2s/index.js';
import type { ConsumerToolConfig, ConsumerToolHandler } from './consumer/consumer-tool.js';
import type { S2SPEdgeOptions } from './edge/edge-options.js';
import type { ListenOptions, ShutdownOptions } from './edge/node-listener.js';
import type { ToolContextOf } from './mcp/mcp-server-like.js';
import type { McpServer, Transport } from './mcp-sdk.js';
import type { ResourceToolConfig, ResourceToolHandler } from './resource/resource-tool.js';
import type { S2SPOptions } from './runtime/options.js';
import type { S2SP } from './runtime/s2sp-types.js';
import type { SlopOptions } from './slop.js';

/** An MCP connection over standard input and output. */
export interface StdioConnection {
  /** Closes the connection's `McpServer` and the transport. */
  close(): Promise<void>;
}

/**
 * Options for {@link createS2SPServer}: the runtime's options, the HTTP edge's (allowed hosts and
 * browser origins, bearer auth, MCP body and batch caps; `trustedHosts` count as allowed hosts)
 * and the MCP server's identity.
 */
export interface S2SPServerOptions extends S2SPOptions, S2SPEdgeOptions {
  /** The MCP server name. */
  readonly name: string;
  /** The MCP server version. */
  readonly version: string;
  /**
   * MCP `instructions` sent to clients at initialisation. With `toolGuidance: "instructions"`
   * the S2SP how-to ({@link S2SP.instructions}) is appended.
   */
  readonly instructions?: string;
  /** Path of the Streamable HTTP endpoint. Default `/mcp`. */
  readonly mcpPath?: string;
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
  /**
   * Drains the listener (see `NodeListener.shutdown`): new requests get 503 `unavailable` with
   * `Retry-After`, running ones get up to `graceMs` (default `shutdownGraceMs`) to finish.
   */
  shutdown(options?: ShutdownOptions): Promise<void>;
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
    handler: ResourceToolHandler<TShape, ToolContextOf<McpServer>>,
  ): S2SPServer;
  /**
   * Adds a consumer tool (PROTOCOL §4) to every `McpServer` this server makes.
   * @throws S2SPError `invalid_config` on a duplicate name or a reserved parameter name
   */
  consumerTool<TShape extends z.ZodRawShape = Record<never, never>>(
    name: string,
    config: ConsumerToolConfig<TShape>,
    handler: ConsumerToolHandler<TShape, ToolContextOf<McpServer>>,
  ): S2SPServer;
  /**
   * Adds ordinary MCP tools, resources and prompts. `configure` runs on every `McpServer` (MCP SDK
   * v2, `@modelcontextprotocol/server`) this server creates (one per HTTP request, one per stdio
   * connection), so it must only register things.
   */
  use(configure: (mcp: McpServer) => void): S2SPServer;
  /** A new `McpServer` with every tool registered, for a transport of your own. */
  createMcpServer(): McpServer;
  /** Connects a new `McpServer` to `transport` (for example an in-memory one in tests). */
  connect(transport: Transport): Promise<McpServer>;
  /** Serves {@link S2SPServer.app} over HTTP on Node (`@hono/node-server`). */
  listen(options?: ListenOptions): Promise<ListeningServer>;
  /**
   * Serves MCP over standard input and output, to clients of either protocol era (the opening
   * message picks it; one `McpServer` serves the connection). The data plane still needs HTTP:
   * call {@link S2SPServer.listen} too, or set `publicUrl` to a data plane served elsewhere.
   *
   * @returns the connection, to `close()`
   */
  connectStdio(): Promise<StdioConnection>;
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
  /**
   * The graceful {@link S2SPServer.close}, for SIGTERM: every listener stops taking requests
   * (new ones get 503 `unavailable` with `Retry-After`) and lets the running ones — data-plane
   * redemptions, MCP tool calls — finish for up to `graceMs` (default: the `shutdownGraceMs`
   * option, 10 s); then the listeners and the store connection close. Entries in a shared store
   * stay for the other replicas.
   */
  shutdown(options?: ShutdownOptions): Promise<void>;
}
