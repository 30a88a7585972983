/**
 * `@s2sp/client/mastra`: S2SP for Mastra (`@mastra/core` agents with `@mastra/mcp`).
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import type { S2SPDispatcher } from './dispatcher.js';
import {
  type CapabilitiesReader,
  dispatcherOf,
  rewriteCall,
  type WithS2SPOptions,
} from './with-s2sp-options.js';

/** The part of a Mastra tool this adapter touches. */
export interface MastraTool {
  execute?: (context: never, options?: never) => Promise<unknown>;
}

/** The part of a Mastra `MCPClient` this adapter touches. */
export interface MastraMcpClient {
  getTools(): Promise<Record<string, MastraTool>>;
  getToolsets(): Promise<Record<string, Record<string, MastraTool>>>;
}

interface InternalClientHolder {
  getConnectedClientForServer?(
    serverName: string,
  ): Promise<{ client?: { getServerCapabilities?(): unknown } } | undefined>;
}

/**
 * A reader of one server's capabilities. Mastra (`@mastra/mcp` 0.14) does not expose them: each
 * server's connection is an `InternalMastraMCPClient` that `MCPClient` hands out from its private
 * `getConnectedClientForServer()`, and it keeps the official MCP SDK `Client`, which has them, in
 * a private `client`. When that path is missing (another Mastra version) the adapter cannot tell
 * whether the server may receive rows, and refuses rather than guessing.
 */
function capabilitiesReader(client: MastraMcpClient, serverName: string): CapabilitiesReader {
  return async () => {
    const holder = client as MastraMcpClient & InternalClientHolder;
    const connection = await holder.getConnectedClientForServer?.(serverName);
    const sdkClient = connection?.client;
    if (typeof sdkClient?.getServerCapabilities === 'function')
      return sdkClient.getServerCapabilities();
    throw new S2SPError(
      'invalid_config',
      `@s2sp/client/mastra cannot read the capabilities of MCP server ${JSON.stringify(serverName)} from this version of @mastra/mcp, so no rows behind a ddi:// resource_url are sent to it. Use the @mastra/mcp version this package is tested with (0.14).`,
    );
  };
}

function wrapTool<TTool extends MastraTool>(
  dispatcher: S2SPDispatcher,
  name: string,
  tool: TTool,
  capabilities: CapabilitiesReader,
): TTool {
  const execute = tool.execute as
    | ((context: unknown, options?: unknown) => Promise<unknown>)
    | undefined;
  if (!execute) return tool;
  // Mastra runs `execute({ context: input, runtimeContext, ... }, options)` and validates the
  // input inside it, so the rewritten input is what the schema checks.
  const wrapped = async (context: unknown, options?: unknown): Promise<unknown> => {
    let next = context;
    if (isPlainObject(context) && isPlainObject(context.context)) {
      const call = await rewriteCall(dispatcher, name, context.context, capabilities);
      if ('error' in call) return call.error;
      next = { ...context, context: call.args };
    }
    return dispatcher.onToolResult(name, await execute.call(tool, next, options));
  };
  // A copy with the same prototype, so Mastra still sees its own Tool class.
  const copy = Object.assign(Object.create(Object.getPrototypeOf(tool) as object) as TTool, tool);
  copy.execute = wrapped as TTool['execute'];
  return copy;
}

function wrapTools<TTools extends Record<string, MastraTool>>(
  dispatcher: S2SPDispatcher,
  tools: TTools,
  capabilities: CapabilitiesReader,
): TTools {
  const out: Record<string, MastraTool> = {};
  for (const [name, tool] of Object.entries(tools))
    out[name] = wrapTool(dispatcher, name, tool, capabilities);
  return out as TTools;
}

/**
 * Gives a Mastra `MCPClient` S2SP sync mode. Returns the same client (a proxy) whose
 * `getTools()` and `getToolsets()` hand out tools that swap a `ddi://` `resource_url` for
 * `body_data` on the way in and move a sync `body` into the agent's buffer on the way out, so
 * the Mastra agent's model never reads a body value. One client covers all its servers, so
 * handles travel between them; pass a shared dispatcher to span several clients. A stale handle
 * comes back as a tool error with advice.
 *
 * A server whose S2SP capability lacks the consumer role never receives buffered rows: the call
 * is answered with a `forbidden` tool error and the handle stays usable. Mastra does not expose a
 * server's capabilities, so the adapter reads them from the MCP SDK client inside Mastra's
 * connection; where it cannot (another `@mastra/mcp` version), it refuses handle swaps with
 * `invalid_config`. `getTools()` names tools `<server>_<tool>`, as Mastra's own does.
 *
 * @param client - a `new MCPClient({ servers })` from `@mastra/mcp`
 * @param options - the shared dispatcher
 * @returns the same client, whose tools rewrite
 * @example
 * ```ts
 * const mcp = withS2SP(new MCPClient({ servers: { weather: { url: new URL(weatherUrl) } } }));
 * const agent = new Agent({ name: 'Analyst', instructions, model, tools: await mcp.getTools() });
 * ```
 */
export function withS2SP<TClient extends MastraMcpClient>(
  client: TClient,
  options: WithS2SPOptions = {},
): TClient {
  const dispatcher = dispatcherOf(options);
  // Built from the toolsets, which say which server each tool calls; the names are the ones
  // Mastra's own getTools() gives.
  const getToolsets = async () => {
    const toolsets = await client.getToolsets();
    const out: Record<string, Record<string, MastraTool>> = {};
    for (const [server, tools] of Object.entries(toolsets))
      out[server] = wrapTools(dispatcher, tools, capabilitiesReader(client, server));
    return out;
  };
  const getTools = async () => {
    const out: Record<string, MastraTool> = {};
    for (const [server, tools] of Object.entries(await getToolsets()))
      for (const [name, tool] of Object.entries(tools)) out[`${server}_${name}`] = tool;
    return out;
  };
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'getTools') return getTools;
      if (property === 'getToolsets') return getToolsets;
      const value = Reflect.get(target, property, receiver);
      // Methods run on the real client, so its private fields (#...) keep working.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export { S2SPDispatcher } from './dispatcher.js';
export type { WithS2SPOptions } from './with-s2sp-options.js';
