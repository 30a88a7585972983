/**
 * The `McpServer` a user brings, of MCP SDK v2 (`@modelcontextprotocol/server`) or v1
 * (`@modelcontextprotocol/sdk`), described by what S2SP uses of it. Its handler context type is
 * read from the server's own `registerTool`, so a tool handler gets exactly what that SDK gives a
 * plain tool: `ctx` on v2, `extra` on v1.
 *
 * @module
 */
import type { z } from 'zod';

/**
 * What S2SP needs of an `McpServer`, either major: register a tool, and declare S2SP in the
 * capabilities before it connects. Both SDKs' `McpServer` fit it with no cast.
 */
export interface McpServerLike {
  /** The SDK's `registerTool`; S2SP passes a zod object schema, which both majors accept. */
  registerTool(
    name: string,
    config: {
      title?: string;
      description?: string;
      inputSchema?: z.ZodObject;
      annotations?: object;
      _meta?: Record<string, unknown>;
    },
    callback: (args: never, call: never) => unknown,
  ): unknown;
  /** Whether it is connected: capabilities can be added only before. */
  isConnected(): boolean;
  /** The low-level server, whose `registerCapabilities` S2SP calls before `connect()`. */
  readonly server: { registerCapabilities(capabilities: never): void };
}

type ToolCallbackOf<M> = M extends {
  registerTool(name: string, config: never, callback: infer C): unknown;
}
  ? C
  : never;

/**
 * The second argument a tool handler gets on this `McpServer`: `ServerContext` (`ctx`) on SDK v2,
 * `RequestHandlerExtra` (`extra`) on SDK v1.
 */
export type ToolContextOf<M> =
  ToolCallbackOf<M> extends (args: never, call: infer C) => unknown ? C : never;

/** The handle this `McpServer`'s `registerTool` returns (`RegisteredTool` of its SDK). */
export type RegisteredToolOf<M extends McpServerLike> = ReturnType<M['registerTool']>;
