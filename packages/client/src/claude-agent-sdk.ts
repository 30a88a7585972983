/**
 * `@s2sp/client/claude-agent-sdk`: S2SP for the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`).
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { rewriteCall } from './adapter-pipeline.js';
import { callAgainOnceConnected } from './advice.js';
import type { S2SPDispatcher } from './dispatcher.js';
import { adapterSetup, type WithS2SPOptions } from './with-s2sp-options.js';

/** The fields of a `PreToolUse` / `PostToolUse` hook input this adapter reads. */
export interface ToolHookInput {
  readonly hook_event_name: string;
  readonly tool_name?: string;
  readonly tool_input?: unknown;
  readonly tool_response?: unknown;
  /** The MCP server serving an `mcp__…` tool (its configured name), from recent SDK versions. */
  readonly mcp_server?: { readonly name?: string };
}

/**
 * One row of `query.mcpServerStatus()`. Claude Code (as shipped with
 * `@anthropic-ai/claude-agent-sdk` 0.3.330) also puts a connected server's declared capabilities
 * in its row — the experimental ones, where S2SP declares itself — though the SDK's
 * `McpServerStatus` type does not list them; the adapter reads them there. A row without them is
 * a server that declared none.
 */
export interface McpServerStatusRow {
  readonly name: string;
  readonly status?: string;
  readonly capabilities?: unknown;
}

/** Options for {@link s2spHooks}. */
export interface S2SPHooksOptions extends WithS2SPOptions {
  /**
   * The running query's `mcpServerStatus()`: the hooks read a server's capabilities there, to
   * send no body rows to a server that declares S2SP without the consumer role.
   */
  readonly mcpServerStatus: () => Promise<readonly McpServerStatusRow[]>;
}

/** The part of the SDK's `Query` (what `query()` returns) this adapter touches. */
export interface AgentSdkQuery {
  mcpServerStatus(): Promise<readonly McpServerStatusRow[]>;
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

/** This adapter, for its options' errors: Claude Code, not this process, sends the MCP calls. */
const CLAUDE_AGENT_SDK = {
  name: '@s2sp/client/claude-agent-sdk',
  cannotDeclare: 'Claude Code sends the MCP tool calls, and its hooks cannot set their _meta',
};

// MCP tools are named mcp__<server>__<tool>; built-in tools are left alone.
const MCP_TOOL = /^mcp__/;

function rewriteResponse(dispatcher: S2SPDispatcher, name: string, response: unknown): unknown {
  if (!Array.isArray(response)) return dispatcher.onToolResult(name, response);
  const rewritten = dispatcher.onToolResult(name, { content: response }) as { content: unknown[] };
  return rewritten.content;
}

/**
 * The capabilities of the server behind an `mcp__<server>__<tool>` call, from the query's MCP
 * status. Claude Code, not this process, is the MCP client here, so that status is the only
 * place they can be read; for a server it does not report as connected the adapter refuses
 * rather than guessing.
 */
async function capabilitiesFor(
  input: ToolHookInput,
  toolName: string,
  mcpServerStatus: S2SPHooksOptions['mcpServerStatus'],
): Promise<unknown> {
  const rows = await mcpServerStatus();
  const named = input.mcp_server?.name;
  const row =
    named === undefined
      ? rows.find((r) => toolName.startsWith(`mcp__${r.name}__`))
      : rows.find((r) => r.name === named);
  // A connected row without capabilities: the server declared none that Claude Code reports (it
  // reports the experimental ones, where S2SP declares itself).
  if (row?.status === 'connected') return row.capabilities;
  throw new S2SPError(
    'unavailable',
    `Claude Code reports no connected MCP server for ${JSON.stringify(toolName)}; no rows were sent. ${callAgainOnceConnected}`,
  );
}

/**
 * The `PreToolUse` and `PostToolUse` hooks behind {@link withS2SP}, for when you assemble the
 * SDK's `hooks` yourself. They need the running query's `mcpServerStatus()`, which does not
 * exist until `query()` has been called with them: pass a function that reads it from a
 * variable you assign afterwards.
 *
 * @param options - the shared dispatcher and the query's `mcpServerStatus`
 * @example
 * ```ts
 * let running: Query | undefined;
 * const hooks = s2spHooks({ dispatcher, mcpServerStatus: () => running!.mcpServerStatus() });
 * running = query({ prompt, options: { mcpServers, hooks: { PreToolUse: [hooks.PreToolUse], PostToolUse: [hooks.PostToolUse] } } });
 * ```
 */
export function s2spHooks(options: S2SPHooksOptions): {
  PreToolUse: ToolHookMatcher;
  PostToolUse: ToolHookMatcher;
} {
  const { dispatcher } = adapterSetup(options, CLAUDE_AGENT_SDK);
  const preToolUse: ToolHookCallback = async (input) => {
    const name = input.tool_name ?? '';
    if (input.hook_event_name !== 'PreToolUse' || !MCP_TOOL.test(name)) return {};
    if (!isPlainObject(input.tool_input)) return {};
    const call = await rewriteCall(dispatcher, name, input.tool_input, () =>
      capabilitiesFor(input, name, options.mcpServerStatus),
    );
    if ('error' in call) {
      // A refused call never reaches the server: it is denied with advice the model reads.
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
 * Gives the Claude Agent SDK's `query()` S2SP sync mode. Returns a function called like `query`
 * whose queries have two more hooks in their `options`: `PreToolUse` swaps a `ddi://`
 * `resource_url` for `body_data` (`updatedInput`), and `PostToolUse` moves a sync `body` into
 * the agent's buffer and hands the model the rest (`updatedMCPToolOutput`). Only MCP tools
 * (`mcp__…`) are touched; hooks you already have stay and run as before. A stale handle denies
 * the call with advice the model reads.
 *
 * A server whose S2SP capability lacks the consumer role never receives buffered rows: the call
 * is denied with the `forbidden` advice and the handle stays usable. Claude Code is the MCP
 * client here, so the adapter wraps `query` to read each server's capabilities from the running
 * query's `mcpServerStatus()`; it refuses a handle swap when they are not reported.
 *
 * @param query - `query` from `@anthropic-ai/claude-agent-sdk`
 * @param s2sp - the shared dispatcher
 * @returns `query` with the hooks added to every call's options
 * @example
 * ```ts
 * const s2spQuery = withS2SP(query, { dispatcher });
 * for await (const message of s2spQuery({ prompt, options: { mcpServers } })) {
 *   if (message.type === 'result') console.log(message);
 * }
 * ```
 */
export function withS2SP<
  TParams extends { options?: AgentSdkOptions },
  TQuery extends AgentSdkQuery,
>(query: (params: TParams) => TQuery, s2sp: WithS2SPOptions = {}): (params: TParams) => TQuery {
  const { dispatcher } = adapterSetup(s2sp, CLAUDE_AGENT_SDK);
  return (params) => {
    let running: TQuery | undefined;
    const ours = s2spHooks({
      dispatcher,
      mcpServerStatus: async () => (running ? running.mcpServerStatus() : []),
    });
    const options: AgentSdkOptions = params.options ?? {};
    const hooks = { ...options.hooks };
    hooks.PreToolUse = [...(hooks.PreToolUse ?? []), ours.PreToolUse];
    hooks.PostToolUse = [...(hooks.PostToolUse ?? []), ours.PostToolUse];
    running = query({ ...params, options: { ...options, hooks } });
    return running;
  };
}

export { S2SPDispatcher } from './dispatcher.js';
export type { WithS2SPOptions } from './with-s2sp-options.js';
