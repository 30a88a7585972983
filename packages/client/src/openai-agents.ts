/**
 * `@s2sp/client/openai-agents`: S2SP for the OpenAI Agents SDK (`@openai/agents`).
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

import { S2SPError, type ToolErrorResult } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { rewriteCall, withMethods } from './adapter-pipeline.js';
import { callMeta } from './call-meta.js';
import { withCompactReading } from './compact-reading.js';
import type { S2SPDispatcher } from './dispatcher.js';
import { adapterSetup, type WithS2SPOptions } from './with-s2sp-options.js';

/**
 * The part of an OpenAI Agents `MCPServer` (`MCPServerStreamableHttp`, `MCPServerStdio`,
 * `MCPServerSSE` or your own) this adapter touches.
 */
export interface AgentsMcpServer {
  readonly name: string;
  /** The server's tools: with `abstractEncoding: "compact"` the adapter adds to them. */
  listTools?(): Promise<readonly { description?: string }[]>;
  callTool(
    toolName: string,
    args: Record<string, unknown> | null,
    ...rest: never[]
  ): Promise<unknown>;
  callToolResult?(
    toolName: string,
    args: Record<string, unknown> | null,
    ...rest: never[]
  ): Promise<unknown>;
  /**
   * The server's capabilities from MCP initialisation. The SDK's `MCPServer` interface has no
   * such member; give your own `MCPServer` class one so the adapter can tell whether the server
   * may receive body rows (see {@link withS2SP}).
   */
  getServerCapabilities?(): unknown;
}

interface SessionHolder {
  readonly session?: { getServerCapabilities?(): unknown } | null;
}

/**
 * The server's capabilities. The SDK does not expose them: in every version this package is
 * tested with (0.14, on the MCP SDK v1, and 0.20, on v2), `MCPServerStreamableHttp`,
 * `MCPServerSSE` and `MCPServerStdio` keep the official MCP SDK `Client` in a private
 * `underlying.session`, and that client has them (in the 2026-07-28 era, those of its
 * `server/discover` result). When neither that nor a `getServerCapabilities()` of your own is
 * there, the adapter cannot tell whether the server may receive rows, and refuses rather than
 * guessing.
 */
function capabilitiesOf(server: AgentsMcpServer): unknown {
  if (typeof server.getServerCapabilities === 'function') return server.getServerCapabilities();
  const { session, underlying } = server as SessionHolder & { underlying?: SessionHolder };
  const client = session ?? underlying?.session;
  if (typeof client?.getServerCapabilities === 'function') return client.getServerCapabilities();
  throw new S2SPError(
    'invalid_config',
    `@s2sp/client/openai-agents reads a server's capabilities from its private underlying.session (the MCP SDK Client) or its own getServerCapabilities(), and MCP server ${JSON.stringify(server.name)} has neither, so no rows behind a ddi:// resource_url are sent to it. Connect the server first, and use an @openai/agents version this package is tested with (0.14.3 to 0.20); for your own MCPServer class, add a getServerCapabilities() method that returns the server's capabilities.`,
  );
}

// The SDK hangs a result's structuredContent, isError and _meta on the content array as
// non-enumerable properties; a rewritten array must carry them too, rewritten.
const CONTENT_METADATA = ['structuredContent', 'isError', '_meta'] as const;

function rewriteContent(dispatcher: S2SPDispatcher, name: string, content: unknown): unknown {
  if (!Array.isArray(content)) return dispatcher.onToolResult(name, content);
  const holder = content as unknown[] & Record<string, unknown>;
  const result: Record<string, unknown> = { content: [...content] };
  for (const key of CONTENT_METADATA) if (holder[key] !== undefined) result[key] = holder[key];
  const rewritten = dispatcher.onToolResult(name, result) as Record<string, unknown>;
  const out = [...(rewritten.content as unknown[])];
  for (const key of CONTENT_METADATA) {
    if (rewritten[key] === undefined) continue;
    Object.defineProperty(out, key, {
      value: rewritten[key],
      enumerable: false,
      configurable: true,
    });
  }
  return out;
}

// Shaped like the SDK's own callTool result: the error code rides along as `_meta`.
function errorContent(error: ToolErrorResult): unknown[] {
  const out = [...error.content];
  for (const [key, value] of [
    ['isError', true],
    ['_meta', error._meta],
  ] as const)
    Object.defineProperty(out, key, { value, enumerable: false, configurable: true });
  return out;
}

/**
 * Gives an OpenAI Agents MCP server S2SP sync mode. Returns the same server (a proxy) whose
 * `callTool` and `callToolResult` swap a `ddi://` `resource_url` for `body_data` on the way in
 * and move a sync `body` into the agent's buffer on the way out — before the SDK turns the
 * result into the tool output the model reads, in the text blocks and in `structuredContent`
 * (so `useStructuredContent: true` is covered too). Pass the result in `mcpServers`; connect and
 * close it as usual. A stale handle comes back as a tool error with advice.
 *
 * A server whose S2SP capability lacks the consumer role never receives buffered rows: the call
 * is answered with a `forbidden` tool error and the handle stays usable. The SDK does not expose
 * a server's capabilities, so the adapter reads them from the MCP SDK client inside the SDK's
 * own server classes; for a server where it finds none (your own `MCPServer` class without a
 * `getServerCapabilities()` method) it refuses handle swaps with `invalid_config`.
 *
 * With `abstractEncoding`, every call declares the encoding your model reads in its `_meta`
 * (PROTOCOL §7.5), under the SDK's own entries; with `"compact"`, `listTools()` also ends each
 * S2SP resource tool's description with how to read the compact rows.
 *
 * @param server - an `MCPServer`, e.g. `new MCPServerStreamableHttp({ url })`
 * @param options - the shared dispatcher: one per agent, passed for every server; the encoding
 *   to declare
 * @throws S2SPError `invalid_config` (with `data.option`) for a bad option
 * @returns the same server, rewriting
 * @example
 * ```ts
 * const dispatcher = new S2SPDispatcher();
 * const weather = withS2SP(new MCPServerStreamableHttp({ url: weatherUrl }), { dispatcher });
 * const agent = new Agent({ name: 'Analyst', mcpServers: [weather] });
 * ```
 */
export function withS2SP<TServer extends AgentsMcpServer>(
  server: TServer,
  options: WithS2SPOptions = {},
): TServer {
  const { dispatcher, declared, compact } = adapterSetup(options, {
    name: '@s2sp/client/openai-agents',
  });
  // The SDK passes a call's `_meta` third (`callTool(name, args, meta, options)`).
  const withDeclared = (rest: unknown[]): unknown[] => {
    const meta = callMeta(rest[0], declared);
    return meta ? [meta, ...rest.slice(1)] : rest;
  };
  const callTool = async (
    toolName: string,
    args: Record<string, unknown> | null,
    ...rest: unknown[]
  ) => {
    const call = await rewriteCall(dispatcher, toolName, isPlainObject(args) ? args : {}, () =>
      capabilitiesOf(server),
    );
    if ('error' in call) return errorContent(call.error);
    const content = await (server.callTool as (...a: unknown[]) => Promise<unknown>).call(
      server,
      toolName,
      call.args,
      ...withDeclared(rest),
    );
    return rewriteContent(dispatcher, toolName, content);
  };
  const callToolResult = async (
    toolName: string,
    args: Record<string, unknown> | null,
    ...rest: unknown[]
  ) => {
    const call = await rewriteCall(dispatcher, toolName, isPlainObject(args) ? args : {}, () =>
      capabilitiesOf(server),
    );
    if ('error' in call) return call.error;
    const original = server.callToolResult as (...a: unknown[]) => Promise<unknown>;
    const result = await original.call(server, toolName, call.args, ...withDeclared(rest));
    return dispatcher.onToolResult(toolName, result);
  };
  const listTools = async () => {
    const tools = await (server.listTools as () => Promise<readonly object[]>).call(server);
    return tools.map((tool) => withCompactReading(tool));
  };
  // callToolResult only where the server has it: the SDK checks for it to choose the full-result
  // path.
  return withMethods(server, { callTool, callToolResult, ...(compact && { listTools }) });
}

export { S2SPDispatcher } from './dispatcher.js';
export type { WithS2SPOptions } from './with-s2sp-options.js';
