import type { BodyStore } from '@s2sp/core/store';
import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ConsumerArguments } from '../consumer/consumer-arguments.js';
import type {
  ResolveConsumerRowsOptions,
  ResolvedConsumerRows,
} from '../consumer/consumer-rows.js';
import type { ConsumerToolConfig, ConsumerToolHandler } from '../consumer/consumer-tool.js';
import type { McpServerLike, RegisteredToolOf, ToolContextOf } from '../mcp/mcp-server-like.js';
import type { CallToolResult } from '../mcp-sdk.js';
import type { ResourceToolConfig, ResourceToolHandler } from '../resource/resource-tool.js';
import type { TableResultArguments } from '../resource/table-request.js';
import type { TableResultContext } from '../resource/table-result.js';

/**
 * The S2SP runtime: what S2SP needs (a store, a TTL, the advertised address, the data plane),
 * and nothing of the MCP server, HTTP app or transport, which stay yours. Created by
 * {@link createS2SP}.
 */
export interface S2SP {
  /** The body store async-mode tables are cached in. */
  readonly store: BodyStore;
  /**
   * The data plane (PROTOCOL §3) as a Hono app with its own error handling: `POST
   * /s2sp/data/:token` and `GET /s2sp/health`. Mount it in your app (`app.route('/',
   * s2sp.dataPlane)`), serve its `fetch` with any adapter, or wrap it for Express and `node:http`
   * with `toNodeHandler` from `@s2sp/server/node`. Mounted under a prefix, set `publicUrl` to
   * match.
   */
  readonly dataPlane: Hono;
  /**
   * Registers a resource tool (PROTOCOL §2) on your `McpServer` — of MCP SDK v2
   * (`@modelcontextprotocol/server`) or v1 (`@modelcontextprotocol/sdk`): the handler returns rows;
   * S2SP adds `abstract_domains` and `mode` to its parameters and does projection, `_row_id`,
   * caching and the response. Register on as many servers as you like (one per request, as SDK
   * v2's `createMcpHandler` makes them, one per session, or for stdio): they share this runtime's
   * store. The handler's second argument is what that SDK gives any tool: `ctx` on v2, `extra` on
   * v1.
   *
   * @returns the SDK's handle, to `disable()`, `enable()`, `update()` or `remove()` the tool
   * @throws S2SPError `invalid_config` for a bad or already registered name, or a tool parameter
   *   named like an S2SP one
   */
  registerResourceTool<
    TShape extends z.ZodRawShape = Record<never, never>,
    M extends McpServerLike = McpServerLike,
  >(
    mcp: M,
    name: string,
    config: ResourceToolConfig<TShape>,
    handler: ResourceToolHandler<TShape, ToolContextOf<M>>,
  ): RegisteredToolOf<M>;
  /**
   * Registers a consumer tool (PROTOCOL §4) on your `McpServer` (SDK v2 or v1): S2SP adds
   * `abstract_data`, `resource_url`, `body_data` and `column_mapping`, fetches and merges, and
   * hands the handler the full rows.
   *
   * @returns the SDK's handle of the tool
   * @throws S2SPError `invalid_config` as {@link S2SP.registerResourceTool}
   */
  registerConsumerTool<
    TShape extends z.ZodRawShape = Record<never, never>,
    M extends McpServerLike = McpServerLike,
  >(
    mcp: M,
    name: string,
    config: ConsumerToolConfig<TShape>,
    handler: ConsumerToolHandler<TShape, ToolContextOf<M>>,
  ): RegisteredToolOf<M>;
  /**
   * Resolves S2SP consumer arguments to rows outside a consumer tool's call — for a tool that
   * takes several tables (each one a `resource_url` with its hand-off), or any callback of your
   * own. It runs exactly what a consumer tool runs before its handler (PROTOCOL §4, §7.4): parse
   * and check the arguments; fetch the body from the `resource_url` under this server's fetch
   * rules (allow-list, public destinations only, path, size cap, timeout) and its shared fetch
   * concurrency limit, or take `body_data`; merge with `abstract_data` by `_row_id`, select by
   * `row_ids` and `filter`; apply `column_mapping`.
   *
   * @param args - `abstract_data`, `resource_url`, `body_data`, `column_mapping`, `row_ids`,
   *   `filter`, as a model sent them (JSON text or parsed)
   * @param options - the call's abort signal; `wholeTable: true` lets arguments without a
   *   selection (a `resource_url` alone) stand for every row of the table
   * @returns the merged rows and what S2SP knows about them (abstract columns, body source)
   * @throws S2SPError with the code a consumer tool would answer: `invalid_request`, `forbidden`
   *   (an origin or address not allowed), `not_found` (an expired or used `resource_url`),
   *   `payload_too_large`, `timeout`, `upstream_error`, `unavailable` (fetch limit full)
   */
  resolveConsumerRows(
    args: ConsumerArguments,
    options?: ResolveConsumerRowsOptions,
  ): Promise<ResolvedConsumerRows>;
  /**
   * The resource-tool response for rows you already have — for a low-level `Server`, a proxy, or
   * any tool callback of your own: the plain JSON array without `abstract_domains`, else the
   * PROTOCOL §2 split. Never throws: a failure is a tool error result carrying a stable code in
   * `_meta['s2sp/error-code']`.
   *
   * @param rows - the table, an array of plain JSON objects
   * @param args - the call's `abstract_domains` and `mode`, as sent
   * @param context - the tool's name, the tool call (`ctx` or `extra`), declared columns
   */
  resourceResult(
    rows: unknown,
    args: TableResultArguments,
    context?: TableResultContext,
  ): Promise<CallToolResult>;
  /**
   * The base URL `resource_url`s name when no MCP request says otherwise: `publicUrl`, else the
   * address of a convenience listener, else `undefined`.
   */
  advertisedUrl(): string | undefined;
  /**
   * The S2SP how-to for the model, to say once in your `McpServer`'s `instructions` when
   * `toolGuidance` is `"instructions"` (`createS2SPServer` adds it to its own).
   */
  readonly instructions: string;
  /** Closes the store when this runtime created it (the default in-memory store). */
  close(): Promise<void>;
}
