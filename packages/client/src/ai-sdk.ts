/**
 * `@s2sp/client/ai-sdk`: S2SP for the Vercel AI SDK (`ai`, `@ai-sdk/mcp`).
 *
 * @module
 */
import { dispatcherOf, rewriteCall, type WithS2SPOptions } from './with-s2sp-options.js';

/** The part of an AI SDK tool this adapter touches. */
export interface ExecutableTool {
  execute?: (input: never, options: never) => unknown;
}

/**
 * Applies S2SP's sync-mode rewrites to AI SDK tools — typically the tools of
 * `createMCPClient(...).tools()` from `@ai-sdk/mcp`. Each tool's `execute` swaps a `ddi://`
 * `resource_url` for `body_data` on the way in and buffers a sync `body` on the way out, so body
 * rows pass through the agent process but never reach the model. Async results and plain tools
 * pass through untouched.
 *
 * @param tools - a tool set (record of tools)
 * @param options - the shared dispatcher
 * @returns a new tool set with wrapped `execute` functions
 * @example
 * ```ts
 * const dispatcher = new S2SPDispatcher();
 * const tools = {
 *   ...withS2SP(await weather.tools(), { dispatcher }),
 *   ...withS2SP(await charts.tools(), { dispatcher }),
 * };
 * await generateText({ model, tools, stopWhen: stepCountIs(5), prompt });
 * ```
 */
export function withS2SP<TTools extends Record<string, ExecutableTool>>(
  tools: TTools,
  options: WithS2SPOptions = {},
): TTools {
  const dispatcher = dispatcherOf(options);
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
          // A stale handle comes back shaped like an MCP tool error, so the MCP tools'
          // toModelOutput shows the advice.
          const call = rewriteCall(dispatcher, name, input as Record<string, unknown>);
          if ('error' in call) return call.error;
          args = call.args;
        }
        return dispatcher.onToolResult(name, await execute(args, executeOptions));
      }) as ExecutableTool['execute'],
    };
  }
  return wrapped as TTools;
}

export { S2SPDispatcher } from './dispatcher.js';
export type { WithS2SPOptions } from './with-s2sp-options.js';
