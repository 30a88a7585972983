/**
 * `@s2sp/client`'s own adapter: S2SP for the official MCP TypeScript SDK `Client`
 * (`@modelcontextprotocol/client`, v2, or `@modelcontextprotocol/sdk`, v1).
 *
 * @module
 */
import { rewriteCall, withMethods } from './adapter-pipeline.js';
import { callMeta, traceContext } from './call-meta.js';
import { withCompactReading } from './compact-reading.js';
import { adapterSetup, type WithS2SPOptions } from './with-s2sp-options.js';

/**
 * The part of the official MCP SDK `Client` this wrapper touches, in either major: v1
 * (`@modelcontextprotocol/sdk`, whose `callTool` also takes a result schema) and v2
 * (`@modelcontextprotocol/client`), in either protocol era. Structural, so neither SDK is
 * imported and no `instanceof` is needed across copies.
 */
export interface CallToolCapable {
  callTool(
    params: { name: string; arguments?: Record<string, unknown> } & Record<string, unknown>,
    ...rest: never[]
  ): Promise<unknown>;
  /**
   * The server's capabilities from initialisation (the `initialize` result, or in the
   * 2026-07-28 era the `server/discover` result): the dispatcher sends no buffered rows to a
   * server that declares S2SP without the consumer role.
   */
  getServerCapabilities(): unknown;
  /** The server's tools (`tools/list`): with `abstractEncoding: "compact"` the wrapper adds to them. */
  listTools?(...args: never[]): Promise<{ tools: readonly { description?: string }[] }>;
}

/**
 * Makes an official MCP SDK `Client` — v1 or v2, in either era — apply S2SP's sync-mode
 * rewrites on every `callTool`: sync
 * bodies are buffered in the agent process (never returned to your LLM code) and `ddi://`
 * handles become `body_data` on the way to consumer tools. The result is the same client (a
 * proxy), so code that already uses the SDK changes one line.
 *
 * A bad handle comes back as an `isError` tool result with advice, like any tool error. A server
 * whose S2SP capability (PROTOCOL §7.7) lacks the consumer role never receives buffered rows:
 * the call is answered with `forbidden` (in `_meta["s2sp/error-code"]`) and the handle stays
 * usable.
 *
 * With `@opentelemetry/api` installed and a span active, every call carries the span's
 * `traceparent` (and `tracestate`) in `_meta`, so the server's tool span joins the agent's trace;
 * a `_meta.traceparent` of your own is kept. It is the same `_meta` entry in both eras (v2 adds
 * its own 2026-07-28 envelope keys beside it).
 *
 * With `abstractEncoding`, every call declares the encoding your model reads in `_meta`
 * (PROTOCOL §7.5), beside the trace context and under your own `_meta` entries; with
 * `"compact"`, `listTools()` also ends each S2SP resource tool's description with how to read
 * the compact rows.
 *
 * @param client - a connected `Client` from `@modelcontextprotocol/client` (v2) or
 *   `@modelcontextprotocol/sdk` (v1)
 * @param options - a shared dispatcher, and the encoding to declare
 * @throws S2SPError `invalid_config` (with `data.option`) for a bad option
 * @example
 * ```ts
 * const dispatcher = new S2SPDispatcher();
 * // weatherClient, chartClient: connected `Client`s of either SDK major
 * const weather = withS2SP(weatherClient, { dispatcher });
 * const charts = withS2SP(chartClient, { dispatcher });
 * ```
 */
export function withS2SP<TClient extends CallToolCapable>(
  client: TClient,
  options: WithS2SPOptions = {},
): TClient {
  const { dispatcher, declared, compact } = adapterSetup(options, { name: '@s2sp/client' });
  const callTool = async (
    params: { name: string; arguments?: Record<string, unknown>; _meta?: unknown },
    ...rest: unknown[]
  ) => {
    const call = await rewriteCall(dispatcher, params.name, params.arguments ?? {}, () =>
      client.getServerCapabilities(),
    );
    if ('error' in call) return call.error;
    // One trace from the agent into the server: its tool span continues the active span.
    const meta = callMeta(params._meta, { ...(await traceContext()), ...declared });
    const result = await (client.callTool as (...a: unknown[]) => Promise<unknown>).call(
      client,
      { ...params, arguments: call.args, ...(meta && { _meta: meta }) },
      ...rest,
    );
    return dispatcher.onToolResult(params.name, result);
  };
  if (!compact) return withMethods(client, { callTool });
  const listTools = async (...args: never[]) => {
    const listed = await (
      client.listTools as (...a: never[]) => Promise<{ tools: unknown[] }>
    ).apply(client, args);
    return { ...listed, tools: listed.tools.map((tool) => withCompactReading(tool as object)) };
  };
  return withMethods(client, { callTool, listTools });
}
