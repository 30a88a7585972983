/**
 * `@s2sp/client/langchain`: S2SP for LangChain.js (`@langchain/mcp-adapters`).
 *
 * @module
 */
import type { LoadMcpToolsOptions } from '@langchain/mcp-adapters';
import { isPlainObject } from '@s2sp/core/internal';
import { S2SPDispatcher } from './dispatcher.js';

/** What `beforeToolCall` receives from `@langchain/mcp-adapters`. */
export interface ToolCallRequest {
  readonly name: string;
  readonly serverName: string;
  readonly args?: unknown;
}

/** What `afterToolCall` receives: the converted result as `[content, artifacts]`. */
export interface ToolCallOutcome extends ToolCallRequest {
  readonly result: readonly [string | readonly unknown[], readonly unknown[]];
}

/**
 * Hooks to spread into a `MultiServerMCPClient` configuration (or `loadMcpTools` options):
 * `beforeToolCall` swaps a `ddi://` `resource_url` for `body_data`; `afterToolCall` moves a sync
 * `body` into the buffer before the model sees the result.
 */
export type S2SPToolHooks = Required<Pick<LoadMcpToolsOptions, 'beforeToolCall' | 'afterToolCall'>>;

/** Options for {@link createS2SPToolHooks}. */
export interface S2SPToolHooksOptions {
  /** The dispatcher whose buffer holds sync bodies. Default: a new one. */
  readonly dispatcher?: S2SPDispatcher;
}

/**
 * `beforeToolCall` / `afterToolCall` hooks that give a LangChain.js agent S2SP sync mode: body
 * rows go through the agent process but never into a `ToolMessage` the model reads.
 *
 * @param options - the dispatcher to use
 * @example
 * ```ts
 * const client = new MultiServerMCPClient({
 *   mcpServers: { weather: { url: 'http://127.0.0.1:3001/mcp' }, charts: { url: 'http://127.0.0.1:3002/mcp' } },
 *   ...createS2SPToolHooks(),
 * });
 * const tools = await client.getTools();
 * ```
 */
export function createS2SPToolHooks(options: S2SPToolHooksOptions = {}): S2SPToolHooks {
  const dispatcher = options.dispatcher ?? new S2SPDispatcher();

  // A text block may carry the result's structuredContent beside its text; rewrite both as one
  // MCP result so they share one handle.
  const rewriteBlock = (name: string, block: unknown): unknown => {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string')
      return block;
    const rewritten = dispatcher.onToolResult(name, {
      content: [{ type: 'text', text: block.text }],
      ...(block.structuredContent !== undefined && { structuredContent: block.structuredContent }),
    }) as { content: { text: string }[]; structuredContent?: unknown };
    return {
      ...block,
      text: rewritten.content[0]?.text,
      ...(block.structuredContent !== undefined && {
        structuredContent: rewritten.structuredContent,
      }),
    };
  };

  const beforeToolCall = ({
    name,
    args,
  }: ToolCallRequest): { args: Record<string, unknown> } | undefined => {
    if (!isPlainObject(args)) return undefined;
    const next = dispatcher.onToolCall(name, args);
    if (next === args) return undefined;
    // The adapter merges these into the original arguments (Object.assign), so the handle is
    // removed by setting it to undefined, which JSON drops on the wire.
    return { args: { ...next, resource_url: undefined } };
  };
  const afterToolCall = ({
    name,
    result,
  }: ToolCallOutcome): { result: [string | unknown[], unknown[]] } => {
    const [content, artifacts] = result;
    const next =
      typeof content === 'string'
        ? dispatcher.onToolResult(name, content)
        : content.map((block) => rewriteBlock(name, block));
    return { result: [next, [...artifacts]] };
  };
  // Our signatures are structural (no runtime import of LangChain); the casts meet the adapter's
  // zod-inferred types, which describe the same shapes.
  return {
    beforeToolCall: beforeToolCall as unknown as S2SPToolHooks['beforeToolCall'],
    afterToolCall: afterToolCall as unknown as S2SPToolHooks['afterToolCall'],
  };
}

export { S2SPDispatcher } from './dispatcher.js';
