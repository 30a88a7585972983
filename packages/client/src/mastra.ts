/**
 * `@s2sp/client/mastra`: S2SP for Mastra (`@mastra/core` agents with `@mastra/mcp`).
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { type CapabilitiesReader, rewriteCall, withMethods } from './adapter-pipeline.js';
import { callMeta } from './call-meta.js';
import { compactDescription, isResourceToolSchema } from './compact-reading.js';
import { type AdapterSetup, adapterSetup, type WithS2SPOptions } from './with-s2sp-options.js';

/** The part of a Mastra tool this adapter touches. */
export interface MastraTool {
  readonly id?: string;
  /** What the model reads about the tool: with `abstractEncoding: "compact"` the adapter adds to it. */
  description?: string;
  readonly inputSchema?: unknown;
  /** What the model reads of a result; see {@link compactTextOutput}. */
  toModelOutput?: (output: never) => unknown;
  execute?: (...args: never[]) => Promise<unknown>;
  /** Which MCP server the tool calls (`@mastra/mcp` 1 and later). */
  readonly mcpMetadata?: { readonly serverName?: string };
}

type Tools = Record<string, MastraTool>;
type Toolsets = Record<string, Tools>;

/**
 * A Mastra `MCPClient` of `@mastra/mcp` 0.14 (with `@mastra/core` 0.24, on the MCP SDK v1): tools
 * from `getTools()` / `getToolsets()`, run as `execute({ context: input, runtimeContext }, options)`.
 */
export interface MastraMcpClientV0 {
  getTools(): Promise<Tools>;
  getToolsets(): Promise<Toolsets>;
}

/**
 * A Mastra `MCPClient` of `@mastra/mcp` 1 and 2 (with `@mastra/core` 1; 2 is on the MCP SDK v2):
 * tools from `listTools()` / `listToolsets()` and their `…WithErrors` forms, and from cached
 * definitions, run as `execute(input, context)`.
 */
export interface MastraMcpClientV1 {
  listTools(): Promise<Tools>;
  listToolsets(): Promise<Toolsets>;
}

/** The part of a Mastra `MCPClient` this adapter touches, in either generation. */
export type MastraMcpClient = MastraMcpClientV0 | MastraMcpClientV1;

interface InternalClientHolder {
  getConnectedClientForServer?(
    serverName: string,
  ): Promise<{ client?: { getServerCapabilities?(): unknown } } | undefined>;
}

/**
 * A reader of one server's capabilities. Mastra does not expose them: in every `@mastra/mcp`
 * this package is tested with (0.14 and 2), each server's connection is an
 * `InternalMastraMCPClient` that `MCPClient` hands out from its private
 * `getConnectedClientForServer(serverName)`, and it keeps the official MCP SDK `Client` (v1 or
 * v2), which has them, in a private `client`. When that path is missing (another Mastra
 * version) the adapter cannot tell whether the server may receive rows, and refuses rather than
 * guessing.
 */
function capabilitiesReader(
  client: MastraMcpClient,
  serverName: string | undefined,
): CapabilitiesReader {
  return async () => {
    const holder = client as MastraMcpClient & InternalClientHolder;
    const connection =
      serverName === undefined ? undefined : await holder.getConnectedClientForServer?.(serverName);
    const sdkClient = connection?.client;
    if (typeof sdkClient?.getServerCapabilities === 'function')
      return sdkClient.getServerCapabilities();
    throw new S2SPError(
      'invalid_config',
      `@s2sp/client/mastra reads a server's capabilities from MCPClient's private getConnectedClientForServer(name).client, which this version of @mastra/mcp does not have for MCP server ${JSON.stringify(serverName ?? 'unknown')}, so no rows behind a ddi:// resource_url are sent to it. Use a @mastra/mcp version this package is tested with (0.14 or 2).`,
    );
  };
}

/**
 * Where `@mastra/mcp` 2 keeps a structured result's MCP `content` (its `getMcpCallToolContent`):
 * a non-enumerable member under this global symbol.
 */
const MCP_CALL_TOOL_CONTENT = Symbol.for('mastra.mcp.callToolContent');

/**
 * The model's view of a resource tool's result when the compact encoding is declared: its text,
 * where the compact rows are. Left alone, Mastra hands the model the result's
 * `structuredContent`, which is the §2 object whatever the encoding (PROTOCOL §7.5), so the
 * declaration would save nothing. Mastra does the same for tools with an output schema.
 */
function compactTextOutput(output: unknown): { type: 'text' | 'json'; value: unknown } {
  const content =
    typeof output === 'object' && output !== null
      ? (output as Record<symbol, unknown>)[MCP_CALL_TOOL_CONTENT]
      : undefined;
  const texts = Array.isArray(content)
    ? content.flatMap((block) =>
        isPlainObject(block) && block.type === 'text' && typeof block.text === 'string'
          ? [block.text]
          : [],
      )
    : [];
  return texts.length > 0
    ? { type: 'text', value: texts.join('\n') }
    : { type: 'json', value: output };
}

/** How a Mastra generation hands a tool its input. */
interface Invocation {
  /** The tool input of a call, or `undefined` when the call carries none to rewrite. */
  input(args: unknown[]): Record<string, unknown> | undefined;
  /** The call's arguments with `input` in place of the original. */
  with(args: unknown[], input: Record<string, unknown>): unknown[];
  /**
   * The call's arguments with `entries` in the `_meta` of its MCP request, or `undefined` where
   * this generation offers no way to set it.
   */
  withMeta?(args: unknown[], entries: Readonly<Record<string, unknown>>): unknown[];
}

// @mastra/core 0.x: execute({ context: input, runtimeContext, ... }, options).
const CONTEXT_INVOCATION: Invocation = {
  input: ([first]) =>
    isPlainObject(first) && isPlainObject(first.context) ? first.context : undefined,
  with: ([first, ...rest], input) => [{ ...(first as object), context: input }, ...rest],
};

// @mastra/core 1 and later: execute(input, context), where @mastra/mcp 2 sends context._meta
// as the request's `_meta`.
const INPUT_INVOCATION: Invocation = {
  input: ([first]) => (isPlainObject(first) ? first : undefined),
  with: ([, ...rest], input) => [input, ...rest],
  withMeta: ([input, context, ...rest], entries) => {
    const base = typeof context === 'object' && context !== null ? context : {};
    // A copy with the same prototype: the context may be an instance whose methods Mastra calls.
    const copy = Object.assign(Object.create(Object.getPrototypeOf(base) as object), base);
    copy._meta = callMeta((base as { _meta?: unknown })._meta, entries);
    return [input, copy, ...rest];
  },
};

function wrapTool<TTool extends MastraTool>(
  { dispatcher, declared, compact }: AdapterSetup,
  invocation: Invocation,
  name: string,
  tool: TTool,
  capabilities: CapabilitiesReader,
): TTool {
  const execute = tool.execute as ((...args: unknown[]) => Promise<unknown>) | undefined;
  if (!execute) return tool;
  // Mastra validates the input inside execute, so the rewritten input is what the schema checks.
  const wrapped = async (...args: unknown[]): Promise<unknown> => {
    let next = args;
    const input = invocation.input(args);
    if (input !== undefined) {
      const call = await rewriteCall(dispatcher, name, input, capabilities);
      if ('error' in call) return call.error;
      next = invocation.with(args, call.args);
    }
    if (declared && invocation.withMeta) next = invocation.withMeta(next, declared);
    return dispatcher.onToolResult(name, await execute.apply(tool, next));
  };
  // A copy with the same prototype, so Mastra still sees its own Tool class.
  const copy = Object.assign(Object.create(Object.getPrototypeOf(tool) as object) as TTool, tool);
  copy.execute = wrapped as TTool['execute'];
  if (compact && isResourceToolSchema(tool.inputSchema)) {
    copy.description = compactDescription(tool.description);
    copy.toModelOutput ??= compactTextOutput;
  }
  return copy;
}

/**
 * Wraps every tool of a record. `server` names the MCP server of a toolset; for a flat record
 * (`listTools()`, `toolsFromDefinitions()`) each tool names its own in `mcpMetadata`.
 */
function wrapTools<TTools extends Tools>(
  setup: AdapterSetup,
  invocation: Invocation,
  client: MastraMcpClient,
  tools: TTools,
  server?: string,
): TTools {
  const out: Tools = {};
  for (const [name, tool] of Object.entries(tools)) {
    const reader = capabilitiesReader(client, server ?? tool.mcpMetadata?.serverName);
    out[name] = wrapTool(setup, invocation, name, tool, reader);
  }
  return out as TTools;
}

function wrapToolsets<TToolsets extends Toolsets>(
  setup: AdapterSetup,
  invocation: Invocation,
  client: MastraMcpClient,
  toolsets: TToolsets,
): TToolsets {
  const out: Toolsets = {};
  for (const [server, tools] of Object.entries(toolsets))
    out[server] = wrapTools(setup, invocation, client, tools, server);
  return out as TToolsets;
}

/** Methods of a `@mastra/mcp` 1+ client that hand out tools, and how to wrap what they return. */
function listMethods(
  setup: AdapterSetup,
  client: MastraMcpClient,
): Record<string, (result: never, args: never[]) => unknown> {
  const tools = (result: Tools) => wrapTools(setup, INPUT_INVOCATION, client, result);
  const toolsets = (result: Toolsets) => wrapToolsets(setup, INPUT_INVOCATION, client, result);
  return {
    listTools: tools,
    listToolsets: toolsets,
    toolsFromDefinitions: tools,
    listToolsWithErrors: (result: { tools: Tools }) => ({ ...result, tools: tools(result.tools) }),
    listToolsetsWithErrors: (result: { toolsets: Toolsets }) => ({
      ...result,
      toolsets: toolsets(result.toolsets),
    }),
    toolFromDefinition: (tool: MastraTool, [options]: [{ serverName?: string }?]) =>
      wrapTool(
        setup,
        INPUT_INVOCATION,
        tool.id ?? 'tool',
        tool,
        capabilitiesReader(client, options?.serverName ?? tool.mcpMetadata?.serverName),
      ),
  } as unknown as Record<string, (result: never, args: never[]) => unknown>;
}

/**
 * Gives a Mastra `MCPClient` S2SP sync mode. Returns the same client (a proxy) whose tools swap a
 * `ddi://` `resource_url` for `body_data` on the way in and move a sync `body` into the agent's
 * buffer on the way out, so the Mastra agent's model never reads a body value: with
 * `@mastra/mcp` 1 and 2, the tools of `listTools()`, `listToolsets()`, their `…WithErrors`
 * forms, `toolsFromDefinitions()` and `toolFromDefinition()`; with 0.14, those of `getTools()`
 * and `getToolsets()`. One client covers all its servers, so handles travel between them; pass
 * a shared dispatcher to span several clients. A stale handle comes back as a tool error with
 * advice.
 *
 * A server whose S2SP capability lacks the consumer role never receives buffered rows: the call
 * is answered with a `forbidden` tool error and the handle stays usable. Mastra does not expose a
 * server's capabilities, so the adapter reads them from the MCP SDK client inside Mastra's
 * connection (`getConnectedClientForServer(name).client`, private); where it cannot (another
 * `@mastra/mcp` version), it refuses handle swaps with `invalid_config`.
 *
 * With `abstractEncoding` (`@mastra/mcp` 2), every call declares the encoding your model reads in
 * its `_meta` (PROTOCOL §7.5), under the `_meta` of the tool's context; with `"compact"`, each
 * S2SP resource tool's description also says how to read the compact rows.
 *
 * @param client - a `new MCPClient({ servers })` from `@mastra/mcp`
 * @param options - the shared dispatcher, and the encoding to declare
 * @throws S2SPError `invalid_config` (with `data.option`) for a bad option, or
 *   `abstractEncoding` with `@mastra/mcp` 0.14
 * @returns the same client, whose tools rewrite
 * @example
 * ```ts
 * const mcp = withS2SP(new MCPClient({ servers: { weather: { url: new URL(weatherUrl) } } }));
 * const agent = new Agent({ id: 'analyst', name: 'Analyst', instructions, model, tools: await mcp.listTools() });
 * ```
 */
export function withS2SP<TClient extends MastraMcpClient>(
  client: TClient,
  options: WithS2SPOptions = {},
): TClient {
  const legacy = !('listToolsets' in client);
  const setup = adapterSetup(options, {
    name: '@s2sp/client/mastra',
    ...(legacy && {
      cannotDeclare: '@mastra/mcp 0.14 gives a tool call no _meta; @mastra/mcp 2 does',
    }),
  });
  const methods: Record<string, (result: never, args: never[]) => unknown> = legacy
    ? {
        getToolsets: (result: Toolsets) => wrapToolsets(setup, CONTEXT_INVOCATION, client, result),
      }
    : listMethods(setup, client);
  // withMethods places each only where the client has the method, so the original is there.
  const overrides = Object.fromEntries(
    Object.entries(methods).map(([name, wrap]) => {
      const original = (...args: never[]) =>
        (Reflect.get(client, name) as (...a: never[]) => Promise<never>).apply(client, args);
      return [name, async (...args: never[]) => wrap(await original(...args), args)];
    }),
  );
  if (legacy) overrides.getTools = legacyGetTools(setup, client);
  return withMethods(client, overrides);
}

/** 0.14's `getTools()`, built from `getToolsets()`: its tools do not say which server they call. */
function legacyGetTools(setup: AdapterSetup, client: MastraMcpClient) {
  return async () => {
    const toolsets = wrapToolsets(
      setup,
      CONTEXT_INVOCATION,
      client,
      await (client as MastraMcpClientV0).getToolsets(),
    );
    const out: Tools = {};
    for (const [server, tools] of Object.entries(toolsets))
      for (const [name, tool] of Object.entries(tools)) out[`${server}_${name}`] = tool;
    return out;
  };
}

export { S2SPDispatcher } from './dispatcher.js';
export type { WithS2SPOptions } from './with-s2sp-options.js';
