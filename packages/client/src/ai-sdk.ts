/**
 * `@s2sp/client/ai-sdk`: S2SP for the Vercel AI SDK (`ai`, `@ai-sdk/mcp`).
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { type CapabilitiesReader, rewriteCall, withMethods } from './adapter-pipeline.js';
import { callMeta } from './call-meta.js';
import { withCompactReading } from './compact-reading.js';
import type { S2SPDispatcher } from './dispatcher.js';
import { adapterSetup, type WithS2SPOptions } from './with-s2sp-options.js';

/** The part of an AI SDK tool this adapter touches. */
export interface ExecutableTool {
  execute?: (input: never, options: never) => unknown;
}

/**
 * The part of an `@ai-sdk/mcp` `MCPClient` (from `createMCPClient`) this adapter touches. Its
 * tools do not say which server they call, so the adapter wraps the client, whose public
 * `initializeResult` holds the server's capabilities: those of the `initialize` result in the
 * 2025 era, or of the `server/discover` result when the client negotiated 2026-07-28 (the
 * default probe of `@ai-sdk/mcp` 2.0.34 and later).
 */
export interface AiSdkMcpClient {
  /** The server's `initialize` (or `server/discover`) result: `@ai-sdk/mcp` 2.0.1 and later. */
  readonly initializeResult?: { readonly capabilities?: unknown };
  tools(...args: never[]): Promise<Record<string, ExecutableTool>>;
  toolsFromDefinitions?(...args: never[]): Record<string, ExecutableTool>;
}

/** An MCP request as `@ai-sdk/mcp`'s client sends it, through its (internal) `request`. */
interface McpRequest {
  readonly request: { readonly method: string; readonly params?: Record<string, unknown> };
}

/**
 * The client as its tools should see it when every call declares something in `_meta`: an object
 * whose prototype is the client, so the tools it makes (which call back into it, as `self`) send
 * their `tools/call` requests through a `request` that adds the entries, and, for the compact
 * encoding, whose resource tools say how to read it. `@ai-sdk/mcp` has no public way to set a
 * call's `_meta`; its `request` (2.0.99, the version this package is tested with) is where every
 * request passes.
 */
function declaringView<TClient extends AiSdkMcpClient>(
  client: TClient,
  declared: Readonly<Record<string, string>>,
  compact: boolean,
): TClient {
  const request = (client as { request?: unknown }).request;
  if (typeof request !== 'function') {
    throw new S2SPError(
      'invalid_config',
      'withS2SP (@s2sp/client/ai-sdk) cannot declare abstractEncoding: this @ai-sdk/mcp client has no request method to carry it. Use @ai-sdk/mcp 2.0.99 or later, or leave abstractEncoding out.',
      { data: { option: 'abstractEncoding' } },
    );
  }
  const view = Object.create(client) as TClient & {
    request(args: McpRequest, ...rest: unknown[]): unknown;
  };
  view.request = (args, ...rest) => {
    const { method, params } = args.request;
    if (method !== 'tools/call' || !isPlainObject(params))
      return request.call(client, args, ...rest);
    const _meta = callMeta(params._meta, declared);
    return request.call(
      client,
      { ...args, request: { method, params: { ...params, _meta } } },
      ...rest,
    );
  };
  const fromDefinitions = client.toolsFromDefinitions as
    | ((definitions: unknown, ...rest: unknown[]) => Record<string, ExecutableTool>)
    | undefined;
  if (compact && fromDefinitions) {
    view.toolsFromDefinitions = ((definitions: unknown, ...rest: unknown[]) => {
      const listed = definitions as { tools?: unknown };
      const tools = Array.isArray(listed?.tools)
        ? listed.tools.map((tool) => withCompactReading(tool as object))
        : listed?.tools;
      return fromDefinitions.call(view, { ...listed, tools }, ...rest);
    }) as TClient['toolsFromDefinitions'];
  }
  return view;
}

function wrapTools<TTools extends Record<string, ExecutableTool>>(
  dispatcher: S2SPDispatcher,
  tools: TTools,
  capabilities: CapabilitiesReader,
): TTools {
  const wrapped: Record<string, ExecutableTool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute as ((input: unknown, options: unknown) => unknown) | undefined;
    if (!execute) {
      wrapped[name] = tool;
      continue;
    }
    wrapped[name] = {
      ...tool,
      execute: (async (input: unknown, executeOptions: unknown) => {
        let args = input;
        if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
          // A refused call comes back shaped like an MCP tool error, so the MCP tools'
          // toModelOutput shows the advice.
          const call = await rewriteCall(
            dispatcher,
            name,
            input as Record<string, unknown>,
            capabilities,
          );
          if ('error' in call) return call.error;
          args = call.args;
        }
        return dispatcher.onToolResult(name, await execute(args, executeOptions));
      }) as ExecutableTool['execute'],
    };
  }
  return wrapped as TTools;
}

/**
 * Gives an `@ai-sdk/mcp` client S2SP sync mode. Returns the same client (a proxy) whose `tools()`
 * and `toolsFromDefinitions()` hand out tools whose `execute` swaps a `ddi://` `resource_url` for
 * `body_data` on the way in and buffers a sync `body` on the way out, so body rows pass through
 * the agent process but never reach the model. Async results and plain tools pass through
 * untouched. A server whose S2SP capability lacks the consumer role never receives buffered
 * rows: the call is answered with a `forbidden` tool error and the handle stays usable.
 *
 * With `abstractEncoding`, every tool call declares the encoding your model reads in `_meta`
 * (PROTOCOL §7.5); with `"compact"`, each S2SP resource tool's description also says how to
 * read the compact rows.
 *
 * @param client - a client from `createMCPClient(...)`
 * @param options - the shared dispatcher: one per agent, passed for every client; the encoding
 *   to declare
 * @throws S2SPError `invalid_config` (with `data.option`) for a bad option
 * @returns the same client, whose tools rewrite
 * @example
 * ```ts
 * const dispatcher = new S2SPDispatcher();
 * const weather = withS2SP(await createMCPClient({ transport }), { dispatcher });
 * const tools = { ...(await weather.tools()), ...(await charts.tools()) };
 * ```
 */
export function withS2SP<TClient extends AiSdkMcpClient>(
  client: TClient,
  options: WithS2SPOptions = {},
): TClient {
  const { dispatcher, declared, compact } = adapterSetup(options, {
    name: '@s2sp/client/ai-sdk',
  });
  // Where the tools come from: the client, or a view of it whose calls carry the declaration.
  const source = declared ? declaringView(client, declared, compact) : client;
  const capabilities: CapabilitiesReader = () => {
    const initialized = client.initializeResult;
    if (initialized === undefined) {
      throw new S2SPError(
        'invalid_config',
        'This @ai-sdk/mcp client has no initializeResult, where @s2sp/client/ai-sdk reads the server capabilities, so no rows behind a ddi:// resource_url are sent through it. Upgrade @ai-sdk/mcp to 2.0.1 or later.',
      );
    }
    return initialized.capabilities;
  };
  const tools = async (...args: never[]) =>
    wrapTools(dispatcher, await source.tools(...args), capabilities);
  const toolsFromDefinitions = (...args: never[]) =>
    wrapTools(dispatcher, source.toolsFromDefinitions?.(...args) ?? {}, capabilities);
  return withMethods(client, { tools, toolsFromDefinitions });
}

export { S2SPDispatcher } from './dispatcher.js';
export type { WithS2SPOptions } from './with-s2sp-options.js';
