/**
 * `@s2sp/client/langchain`: S2SP for LangChain.js (`@langchain/mcp-adapters`).
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */
import type { LoadMcpToolsOptions } from '@langchain/mcp-adapters';
import { S2SPError, S2SPResultSchema } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { toolServerFor } from './adapter-pipeline.js';
import { callAgainOnceConnected } from './advice.js';
import { carriesHandle } from './dispatcher.js';
import { adapterSetup, type WithS2SPOptions } from './with-s2sp-options.js';

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

/** The part of a `MultiServerMCPClient` configuration (or `loadMcpTools` options) we touch. */
export type ToolHooksConfig = Partial<S2SPToolHooks>;

/**
 * The part of a `MultiServerMCPClient` the adapter uses: `getClient(serverName)`, the official
 * MCP SDK `Client` of a server, whose capabilities say whether it may receive body rows. The
 * hooks LangChain calls name the server but do not carry its capabilities.
 */
export interface LangChainMcpClient {
  getClient(
    serverName: string,
    ...rest: never[]
  ): Promise<{ getServerCapabilities(): unknown } | undefined>;
}

/**
 * Creates a `MultiServerMCPClient` with S2SP sync mode: body rows go through the agent process
 * but never into a `ToolMessage` the model reads. The client is built from your configuration
 * plus a `beforeToolCall` that swaps a `ddi://` `resource_url` for `body_data` and an
 * `afterToolCall` that moves a sync `body` into the buffer. Hooks already in the configuration
 * keep working: yours run first on the way in and see the rewritten result on the way out, so
 * they never see a body either.
 *
 * The adapter builds the client itself because LangChain's hooks name the server but not its
 * capabilities: it reads those from the client's `getClient(serverName)`. A server whose S2SP
 * capability lacks the consumer role never receives buffered rows: the tool call fails with an
 * `S2SPError` whose `code` is `forbidden` (LangChain hands tool failures to your agent as
 * thrown errors; LangGraph's `ToolNode` shows their message to the model), and the handle stays
 * usable.
 *
 * @param Client - the `MultiServerMCPClient` class from `@langchain/mcp-adapters`
 * @param config - the configuration you would pass to `new MultiServerMCPClient(...)`
 * @param options - the shared dispatcher (`abstractEncoding` is refused: LangChain's hooks cannot
 *   set a call's `_meta`)
 * @returns the new client
 * @throws S2SPError `invalid_config` (with `data.option`) for a bad option
 * @example
 * ```ts
 * const client = withS2SP(MultiServerMCPClient, {
 *   mcpServers: { weather: { url: 'http://127.0.0.1:3001/mcp', transport: 'http' } },
 * });
 * const tools = await client.getTools();
 * ```
 */
export function withS2SP<TConfig extends object, TClient extends LangChainMcpClient>(
  Client: new (config: TConfig) => TClient,
  // Typed by the class, so a literal configuration is checked against LangChain's own type.
  config: NoInfer<TConfig>,
  options: WithS2SPOptions = {},
): TClient {
  let client: TClient | undefined;
  const capabilities = async (serverName: string): Promise<unknown> => {
    const sdkClient = await client?.getClient(serverName);
    if (sdkClient) return sdkClient.getServerCapabilities();
    throw new S2SPError(
      'unavailable',
      `MCP server ${JSON.stringify(serverName)} is not connected, so nothing can be sent to it. ${callAgainOnceConnected}`,
    );
  };
  client = new Client(withHooks(config, s2spToolHooks(options, capabilities)));
  return client;
}

/** `config` with our hooks added after (in) and before (out) the ones it already has. */
function withHooks<TConfig extends object>(
  config: TConfig,
  ours: S2SPToolHooks,
): TConfig & S2SPToolHooks {
  const { beforeToolCall: userBefore, afterToolCall: userAfter } = config as ToolHooksConfig;
  if (!userBefore && !userAfter) return { ...config, ...ours };
  type Before = S2SPToolHooks['beforeToolCall'];
  type After = S2SPToolHooks['afterToolCall'];
  type Modification = { args?: unknown; headers?: Record<string, string> } | undefined;
  // Synchronous unless your hook is async or the call carries a handle: the adapter validates
  // hook results with zod, and a promise where a plain value was returned before changes how it
  // checks them.
  const beforeToolCall = ((request, state, runtime) =>
    then(userBefore?.(request, state, runtime) as Modification, (theirs) => {
      const theirArgs = isPlainObject(theirs?.args) ? theirs.args : undefined;
      // The adapter merges hook args into the original arguments, so ours see the same merge.
      const args = theirArgs ? { ...(request.args as object), ...theirArgs } : request.args;
      const mine = ours.beforeToolCall({ ...request, args }, state, runtime) as
        | Modification
        | Promise<Modification>;
      return then(mine, (resolved) => {
        if (!theirs) return resolved;
        return resolved
          ? { ...theirs, args: { ...theirArgs, ...(resolved.args as object) } }
          : theirs;
      });
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
function then<T, R>(value: T | Promise<T>, next: (resolved: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * Lets an S2SP error out of LangChain's adapter as it is. The adapter passes an error named
 * `ToolException` through unchanged and wraps any other in a new one that keeps only its text,
 * which would lose the `code` your agent code may act on. It stays an `S2SPError`
 * (`S2SPError.isInstance` is true).
 */
function asToolException(error: unknown): unknown {
  if (S2SPError.isInstance(error))
    Object.defineProperty(error, 'name', { value: 'ToolException', configurable: true });
  return error;
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

function s2spToolHooks(
  options: WithS2SPOptions,
  capabilities: (serverName: string) => Promise<unknown>,
): S2SPToolHooks {
  const { dispatcher } = adapterSetup(options, {
    name: '@s2sp/client/langchain',
    cannotDeclare: "LangChain's tool hooks change a call's arguments and headers, never its _meta",
  });

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

  // Synchronous when there is no handle (most calls); see the note in withHooks.
  const beforeToolCall = ({
    name,
    args,
    serverName,
  }: ToolCallRequest):
    | { args: Record<string, unknown> }
    | undefined
    | Promise<{ args: Record<string, unknown> }> => {
    if (!isPlainObject(args) || !carriesHandle(args)) return undefined;
    return toolServerFor(args, () => capabilities(serverName)).then((server) => {
      let next: Record<string, unknown>;
      try {
        next = dispatcher.onToolCall(name, args, server);
      } catch (error) {
        throw asToolException(error);
      }
      // The adapter merges these into the original arguments (Object.assign), so the handle is
      // removed by setting it to undefined, which JSON drops on the wire.
      return { args: { ...next, resource_url: undefined } };
    });
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
