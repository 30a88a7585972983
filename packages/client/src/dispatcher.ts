import { type RowWithId, S2SPError, type S2SPResult, S2SPResultSchema } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { DdiBuffer } from './ddi-buffer.js';

/** Options for {@link S2SPDispatcher}. */
export interface S2SPDispatcherOptions {
  /** The buffer to keep bodies in; share one between dispatchers to share handles. */
  readonly buffer?: DdiBuffer;
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
 * The agent's S2SP layer for sync mode (PROTOCOL §5). It rewrites at two points so that sync
 * mode looks like async mode to the LLM:
 *
 * - {@link S2SPDispatcher.onToolResult}: a sync result (`abstract` + `body`) loses its `body`,
 *   which goes into the buffer; its `resource_url` becomes a `ddi://` handle. Everything else —
 *   async results, errors, non-JSON, other JSON — passes through untouched.
 * - {@link S2SPDispatcher.onToolCall}: a `resource_url` that is a `ddi://` handle is replaced by
 *   `body_data` holding those rows (only the rows named in `abstract_data`, when it parses).
 *   `http(s)` URLs pass through untouched.
 *
 * Framework adapters (`@s2sp/client/ai-sdk`, `@s2sp/client/langchain`) and
 * {@link wrapMcpClient} call these for you.
 */
export class S2SPDispatcher {
  /** Where bodies wait for their consumer call. */
  readonly buffer: DdiBuffer;

  /** @param options - an optional shared buffer */
  constructor(options: S2SPDispatcherOptions = {}) {
    this.buffer = options.buffer ?? new DdiBuffer();
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
   * becomes `body_data` (a JSON string, as consumer tools declare it).
   *
   * @param _toolName - the tool being called
   * @param args - the arguments the LLM produced
   * @returns new arguments, or `args` itself when there is nothing to rewrite
   * @throws S2SPError `not_found` for an unknown, used or expired handle; `invalid_request` when
   *   `body_data` is given too
   */
  onToolCall(_toolName: string, args: Record<string, unknown>): Record<string, unknown> {
    const url = args.resource_url;
    if (!DdiBuffer.isHandle(url)) return args;
    const bodyData = args.body_data;
    if (bodyData !== undefined && bodyData !== null && bodyData !== '') {
      throw new S2SPError(
        'invalid_request',
        'Pass either resource_url or body_data, not both: the resource_url already stands for the body rows.',
      );
    }
    const rows = this.buffer.take(url.trim());
    const ids = rowIdsOf(args.abstract_data);
    const selected = ids ? rows.filter((row) => ids.has(row._row_id)) : rows;
    const { resource_url: _url, body_data: _body, ...rest } = args;
    return { ...rest, body_data: JSON.stringify(selected) };
  }
}
