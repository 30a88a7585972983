import {
  type RowWithId,
  readS2SPCapability,
  S2SPError,
  type S2SPResult,
  S2SPResultSchema,
} from '@s2sp/core';
import { passHandleToConsumer, resourceUrlOrBodyData } from '@s2sp/core/advice';
import { isPlainObject } from '@s2sp/core/json';
import { DdiBuffer } from './ddi-buffer.js';

/** Options for {@link S2SPDispatcher}. */
export interface S2SPDispatcherOptions {
  /** The buffer to keep bodies in; share one between dispatchers to share handles. */
  readonly buffer?: DdiBuffer;
  /**
   * Called with every call the dispatcher refuses (a stale handle, a server without the consumer
   * role, …) before the adapter turns the error into a tool error for the model: the model reads
   * the advice, this callback lets your code log or count the refusals by `error.code`.
   */
  readonly onRefusal?: (refusal: S2SPRefusal) => void;
}

/** A tool call the dispatcher refused; see {@link S2SPDispatcherOptions.onRefusal}. */
export interface S2SPRefusal {
  /** The tool the call was for. */
  readonly toolName: string;
  /** Why; `error.code` is stable (`forbidden`, `not_found`, `invalid_request`). */
  readonly error: S2SPError;
}

/**
 * What an adapter knows about the MCP server a tool call goes to. The dispatcher reads
 * `capabilities` only when the call carries a `ddi://` handle, so an adapter may compute it in a
 * getter; a getter that cannot tell throws an `S2SPError`, and the call is refused with it.
 */
export interface S2SPToolServer {
  /**
   * The server's capabilities from its MCP `initialize` result, as the client received them
   * (`client.getServerCapabilities()` for the MCP SDK). `undefined` only when the server sent
   * none — never as a stand-in for "could not find out", which would let rows through.
   */
  readonly capabilities: unknown;
}

type SyncResult = S2SPResult & { body: RowWithId[] };

function isSyncResult(value: unknown): value is SyncResult {
  const parsed = S2SPResultSchema.safeParse(value);
  return parsed.success && Array.isArray(parsed.data.body);
}

function parseJson(text: string): unknown {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function rowIdsOf(abstractData: unknown): Set<number> | undefined {
  let rows: unknown = abstractData;
  if (typeof rows === 'string') {
    try {
      rows = JSON.parse(rows);
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(rows)) return undefined;
  const ids = new Set<number>();
  for (const row of rows) {
    if (!isPlainObject(row) || typeof row._row_id !== 'number') return undefined;
    ids.add(row._row_id);
  }
  return ids;
}

/**
 * Throws `forbidden` when the server declares S2SP (PROTOCOL §7.7) without the consumer role: such
 * a server has no tool that should take body rows, so a handle passed to it is a model's mistake
 * or a prompt injection. A server that declares nothing (the Python reference, older servers) is
 * judged by its tools alone, as before the declaration existed.
 */
function assertTakesBodies(toolName: string, server: S2SPToolServer): void {
  const declared = readS2SPCapability(server.capabilities);
  if (declared?.roles === undefined || declared.roles.includes('consumer')) return;
  throw new S2SPError(
    'forbidden',
    `${JSON.stringify(toolName)} is on a server without the S2SP consumer role; no rows were sent. ${passHandleToConsumer}`,
  );
}

/**
 * The agent's S2SP layer for sync mode (PROTOCOL §5). It rewrites at two points so that sync
 * mode looks like async mode to the LLM:
 *
 * - {@link S2SPDispatcher.onToolResult}: a sync result (`abstract` + `body`) loses its `body`,
 *   which goes into the buffer; its `resource_url` becomes a `ddi://` handle. Everything else —
 *   async results, errors, non-JSON, other JSON — passes through untouched.
 * - {@link S2SPDispatcher.onToolCall}: a `resource_url` that is a `ddi://` handle is replaced by
 *   `body_data` holding those rows (only the rows named in `abstract_data`, when it parses) —
 *   unless the server declares S2SP without the consumer role, which never receives them.
 *   `http(s)` URLs pass through untouched.
 *
 * Every `withS2SP` adapter (`@s2sp/client` for the MCP SDK, and the `ai-sdk`, `langchain`,
 * `openai-agents`, `claude-agent-sdk` and `mastra` subpaths) calls these for you and tells
 * `onToolCall` which server the call goes to.
 */
export class S2SPDispatcher {
  /** Where bodies wait for their consumer call. */
  readonly buffer: DdiBuffer;
  readonly #onRefusal: ((refusal: S2SPRefusal) => void) | undefined;

  /** @param options - an optional shared buffer and refusal callback */
  constructor(options: S2SPDispatcherOptions = {}) {
    this.buffer = options.buffer ?? new DdiBuffer();
    this.#onRefusal = options.onRefusal;
  }

  /** Bodies buffered and not yet used. */
  get pending(): number {
    return this.buffer.size;
  }

  /** Drops every buffered body. */
  reset(): void {
    this.buffer.clear();
  }

  /**
   * Rewrites a tool result before the LLM sees it. Accepts a JSON string, a parsed object, or an
   * MCP `CallToolResult`, whose text blocks *and* `structuredContent` are both rewritten so the
   * body cannot leak through either. Returns a new value; the input is not modified.
   *
   * @param _toolName - the tool that produced the result (for symmetry with onToolCall)
   * @param result - the raw result
   */
  onToolResult<T>(_toolName: string, result: T): T {
    // One handle per result, even when the body appears in several places.
    let handle: string | undefined;
    const strip = (object: SyncResult): S2SPResult => {
      handle ??= this.buffer.put(object.body);
      const { body: _body, ...rest } = object;
      return { ...rest, resource_url: handle };
    };
    const rewriteText = (text: string): string => {
      const json = parseJson(text);
      return isSyncResult(json) ? JSON.stringify(strip(json)) : text;
    };

    if (typeof result === 'string') return rewriteText(result) as T;
    if (!isPlainObject(result)) return result;
    if (isSyncResult(result)) return strip(result) as T;
    if (!Array.isArray(result.content) || result.isError === true) return result;

    const content = result.content.map((block: unknown) =>
      isPlainObject(block) && block.type === 'text' && typeof block.text === 'string'
        ? { ...block, text: rewriteText(block.text) }
        : block,
    );
    const out: Record<string, unknown> = { ...result, content };
    if (isSyncResult(result.structuredContent))
      out.structuredContent = strip(result.structuredContent);
    return out as T;
  }

  /**
   * Rewrites a tool call's arguments before they go to the server: a `ddi://` `resource_url`
   * becomes `body_data` (a JSON string, as consumer tools declare it). A refused call leaves the
   * handle in the buffer, so it still works with the right server.
   *
   * @param toolName - the tool being called
   * @param args - the arguments the LLM produced
   * @param server - the server the call goes to: its capabilities decide whether it may receive
   *   the rows behind a handle
   * @returns new arguments, or `args` itself when there is nothing to rewrite
   * @throws S2SPError `forbidden` when the server declares S2SP without the consumer role;
   *   `not_found` for an unknown, used or expired handle; `invalid_request` when `body_data` is
   *   given too; whatever the `capabilities` getter of `server` throws
   */
  onToolCall(
    toolName: string,
    args: Record<string, unknown>,
    server: S2SPToolServer,
  ): Record<string, unknown> {
    if (!DdiBuffer.isHandle(args.resource_url)) return args;
    try {
      return this.#swapHandle(toolName, args, server);
    } catch (error) {
      if (S2SPError.isInstance(error)) this.#onRefusal?.({ toolName, error });
      throw error;
    }
  }

  #swapHandle(
    toolName: string,
    args: Record<string, unknown>,
    server: S2SPToolServer,
  ): Record<string, unknown> {
    const url = args.resource_url as string;
    // Before the handle is taken, so a refused call leaves it usable.
    assertTakesBodies(toolName, server);
    const bodyData = args.body_data;
    if (bodyData !== undefined && bodyData !== null && bodyData !== '') {
      throw new S2SPError('invalid_request', resourceUrlOrBodyData);
    }
    const rows = this.buffer.take(url.trim());
    const ids = rowIdsOf(args.abstract_data);
    const selected = ids ? rows.filter((row) => ids.has(row._row_id)) : rows;
    const { resource_url: _url, body_data: _body, ...rest } = args;
    return { ...rest, body_data: JSON.stringify(selected) };
  }
}
