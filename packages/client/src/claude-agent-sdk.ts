/**
 * `@s2sp/client/claude-agent-sdk`: S2SP for the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`).
 *
 * @module
 */

import { isPlainObject } from '@s2sp/core/json';
import type { S2SPDispatcher } from './dispatcher.js';
import { dispatcherOf, rewriteCall, type WithS2SPOptions } from './with-s2sp-options.js';

/** The fields of a `PreToolUse` / `PostToolUse` hook input this adapter reads. */
export interface ToolHookInput {
  readonly hook_event_name: string;
  readonly tool_name?: string;
  readonly tool_input?: unknown;
  readonly tool_response?: unknown;
}

/** A hook callback, shaped like the SDK's `HookCallback`. */
export type ToolHookCallback = (
  input: ToolHookInput,
  toolUseID: string | undefined,
  options: { signal: AbortSignal },
) => Promise<Record<string, unknown>>;

/** A hook matcher, shaped like the SDK's `HookCallbackMatcher`. */
export interface ToolHookMatcher {
  matcher?: string;
  hooks: ToolHookCallback[];
}

/** The part of the SDK's `Options` (for `query()`) this adapter touches. */
export interface AgentSdkOptions {
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's hook callbacks take its own HookInput union
  hooks?: Partial<Record<string, { matcher?: string; hooks: any[] }[]>>;
}

// MCP tools are named mcp__<server>__<tool>; built-in tools are left alone.
const MCP_TOOL = /^mcp__/;

function rewriteResponse(dispatcher: S2SPDispatcher, name: string, response: unknown): unknown {
  if (!Array.isArray(response)) return dispatcher.onToolResult(name, response);
  const rewritten = dispatcher.onToolResult(name, { content: response }) as { content: unknown[] };
  return rewritten.content;
}

/**
 * The `PreToolUse` and `PostToolUse` hooks behind {@link withS2SP}, for when you assemble the
 * SDK's `hooks` yourself.
 *
 * @param options - the shared dispatcher
 */
export function s2spHooks(options: WithS2SPOptions = {}): {
  PreToolUse: ToolHookMatcher;
  PostToolUse: ToolHookMatcher;
} {
  const dispatcher = dispatcherOf(options);
  const preToolUse: ToolHookCallback = async (input) => {
    const name = input.tool_name ?? '';
    if (input.hook_event_name !== 'PreToolUse' || !MCP_TOOL.test(name)) return {};
    if (!isPlainObject(input.tool_input)) return {};
    const call = rewriteCall(dispatcher, name, input.tool_input);
    if ('error' in call) {
      // A stale handle never reaches the server: the call is denied with advice the model reads.
      return {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: call.error.content[0]?.text,
        },
      };
    }
    if (call.args === input.tool_input) return {};
    // Only the input changes; whether the call is allowed stays with your permission settings.
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: call.args } };
  };
  const postToolUse: ToolHookCallback = async (input) => {
    const name = input.tool_name ?? '';
    if (input.hook_event_name !== 'PostToolUse' || !MCP_TOOL.test(name)) return {};
    const response = input.tool_response;
    const rewritten = rewriteResponse(dispatcher, name, response);
    if (JSON.stringify(rewritten) === JSON.stringify(response)) return {};
    return {
      hookSpecificOutput: { hookEventName: 'PostToolUse', updatedMCPToolOutput: rewritten },
    };
  };
  return {
    PreToolUse: { hooks: [preToolUse] },
    PostToolUse: { hooks: [postToolUse] },
  };
}

/**
 * Gives a Claude Agent SDK `query()` S2SP sync mode. Returns a copy of your `Options` with two
 * more hooks: `PreToolUse` swaps a `ddi://` `resource_url` for `body_data` (`updatedInput`), and
 * `PostToolUse` moves a sync `body` into the agent's buffer and hands the model the rest
 * (`updatedMCPToolOutput`). Only MCP tools (`mcp__…`) are touched; hooks you already have stay
 * and run as before. A stale handle denies the call with advice the model reads.
 *
 * @param options - the `Options` you would pass to `query({ prompt, options })`
 * @param s2sp - the shared dispatcher
 * @returns new `Options` with the hooks added
 * @example
 * ```ts
 * for await (const message of query({ prompt, options: withS2SP({ mcpServers }) })) {
 *   if (message.type === 'result') console.log(message);
 * }
 * ```
 */
export function withS2SP<TOptions extends AgentSdkOptions>(
  options: TOptions,
  s2sp: WithS2SPOptions = {},
): TOptions {
  const ours = s2spHooks(s2sp);
  const hooks = { ...options.hooks };
  hooks.PreToolUse = [...(hooks.PreToolUse ?? []), ours.PreToolUse];
  hooks.PostToolUse = [...(hooks.PostToolUse ?? []), ours.PostToolUse];
  return { ...options, hooks };
}

export { S2SPDispatcher } from './dispatcher.js';
export type { WithS2SPOptions } from './with-s2sp-options.js';
