/**
 * `@s2sp/client/langchain`: S2SP for LangChain.js (`@langchain/mcp-adapters`).
 *
 * @module
 */
import type { LoadMcpToolsOptions } from '@langchain/mcp-adapters';
import { S2SPResultSchema } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { dispatcherOf, type WithS2SPOptions } from './with-s2sp-options.js';

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

/**
 * Options for {@link createS2SPToolHooks}.
 * @deprecated Use {@link WithS2SPOptions}; this alias goes in the next minor release.
 */
export type S2SPToolHooksOptions = WithS2SPOptions;

/** The part of a `MultiServerMCPClient` configuration (or `loadMcpTools` options) we touch. */
export type ToolHooksConfig = Partial<S2SPToolHooks>;

/**
 * Gives a `MultiServerMCPClient` configuration (or `loadMcpTools` options) S2SP sync mode: body
 * rows go through the agent process but never into a `ToolMessage` the model reads. Returns a
 * new configuration whose `beforeToolCall` swaps a `ddi://` `resource_url` for `body_data` and
 * whose `afterToolCall` moves a sync `body` into the buffer. Hooks already in the configuration
 * keep working: yours run first on the way in and see the rewritten result on the way out, so
 * they never see a body either.
 *
 * @param config - the configuration you would pass to `new MultiServerMCPClient(...)`
 * @param options - the shared dispatcher
 * @example
 * ```ts
 * const client = new MultiServerMCPClient(
 *   withS2SP({ mcpServers: { weather: { url: 'http://127.0.0.1:3001/mcp', transport: 'http' } } }),
 * );
 * const tools = await client.getTools();
 * ```
 */
export function withS2SP<TConfig extends object>(
  config: TConfig,
  options: WithS2SPOptions = {},
): TConfig & S2SPToolHooks {
  const ours = s2spToolHooks(options);
  const { beforeToolCall: userBefore, afterToolCall: userAfter } = config as ToolHooksConfig;
  if (!userBefore && !userAfter) return { ...config, ...ours };
  type Before = S2SPToolHooks['beforeToolCall'];
  type After = S2SPToolHooks['afterToolCall'];
  type Modification = { args?: unknown; headers?: Record<string, string> } | undefined;
  // Synchronous unless your hook is async: the adapter validates hook results with zod, and
  // a promise where a plain value was returned before changes how it checks them.
  const beforeToolCall = ((request, state, runtime) =>
    then(userBefore?.(request, state, runtime) as Modification, (theirs) => {
      const theirArgs = isPlainObject(theirs?.args) ? theirs.args : undefined;
      // The adapter merges hook args into the original arguments, so ours see the same merge.
      const args = theirArgs ? { ...(request.args as object), ...theirArgs } : request.args;
      const mine = ours.beforeToolCall({ ...request, args }, state, runtime) as Modification;
      if (!theirs) return mine;
      return mine ? { ...theirs, args: { ...theirArgs, ...(mine.args as object) } } : theirs;
    })) as Before;
  const afterToolCall = ((outcome, state, runtime) => {
    const mine = ours.afterToolCall(outcome, state, runtime) as { result: unknown } | undefined;
    if (!userAfter) return mine;
    const next = mine ? { ...outcome, result: mine.result } : outcome;
    return then(
      userAfter(next as Parameters<After>[0], state, runtime),
      (theirs) => theirs ?? mine,
    );
  }) as After;
  return { ...config, beforeToolCall, afterToolCall };
}

/** Applies `next` to `value`, or to what it resolves to when it is a promise. */
function then<T, R>(value: T | Promise<T>, next: (resolved: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * `beforeToolCall` / `afterToolCall` hooks that give a LangChain.js agent S2SP sync mode.
 *
 * @deprecated Use `withS2SP(config, { dispatcher })`, which also keeps hooks you already have;
 * this function goes in the next minor release.
 * @param options - the dispatcher to use
 */
export function createS2SPToolHooks(options: WithS2SPOptions = {}): S2SPToolHooks {
  return s2spToolHooks(options);
}

interface TextBlockWithExtras {
  readonly type: 'text';
  readonly text: string;
  readonly structuredContent?: unknown;
  readonly meta?: unknown;
}

function isTextBlockWithExtras(block: unknown): block is TextBlockWithExtras {
  return (
    isPlainObject(block) &&
    block.type === 'text' &&
    typeof block.text === 'string' &&
    (block.structuredContent !== undefined || block.meta !== undefined)
  );
}

function s2spToolHooks(options: WithS2SPOptions): S2SPToolHooks {
  const dispatcher = dispatcherOf(options);

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
  }: ToolCallOutcome): { result: [string | unknown[] | object, unknown[]] } => {
    const [content, artifacts] = result;
    if (typeof content === 'string')
      return { result: [dispatcher.onToolResult(name, content), [...artifacts]] };
    const [only] = content;
    if (content.length === 1 && isTextBlockWithExtras(only))
      return { result: lone(name, only, artifacts) };
    return { result: [content.map((block) => rewriteBlock(name, block)), [...artifacts]] };
  };

  // A lone text block with structuredContent (or _meta) beside it: the adapter, left alone,
  // returns that block as the content — which LangChain turns into JSON text, so the model reads
  // the result twice — and `mcp_structured_content` / `mcp_meta` artifacts, which it hands hooks
  // without. Give back what it would have returned, with those artifacts; for an S2SP result the
  // content is its text alone, so the model reads it once (the structured copy stays in the
  // artifact, which no model sees).
  const lone = (
    name: string,
    block: TextBlockWithExtras,
    artifacts: readonly unknown[],
  ): [string | object, unknown[]] => {
    const rewritten = rewriteBlock(name, block) as TextBlockWithExtras;
    const restored = [
      ...artifacts,
      ...(rewritten.structuredContent !== undefined
        ? [{ type: 'mcp_structured_content', data: rewritten.structuredContent }]
        : []),
      ...(rewritten.meta !== undefined ? [{ type: 'mcp_meta', data: rewritten.meta }] : []),
    ];
    return [
      S2SPResultSchema.safeParse(rewritten.structuredContent).success ? rewritten.text : rewritten,
      restored,
    ];
  };
  // Our signatures are structural (no runtime import of LangChain); the casts meet the adapter's
  // zod-inferred types, which describe the same shapes.
  return {
    beforeToolCall: beforeToolCall as unknown as S2SPToolHooks['beforeToolCall'],
    afterToolCall: afterToolCall as unknown as S2SPToolHooks['afterToolCall'],
  };
}

export { S2SPDispatcher } from './dispatcher.js';
export type { WithS2SPOptions } from './with-s2sp-options.js';
