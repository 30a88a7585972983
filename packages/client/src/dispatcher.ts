import {
  type RowWithId,
  readS2SPCapability,
  S2SPError,
  type S2SPResult,
  S2SPResultSchema,
} from '@s2sp/core';
import { resourceUrlOrBodyData } from '@s2sp/core/advice';
import { isPlainObject, parseJsonText } from '@s2sp/core/json';
import { passHandleToConsumer } from './advice.js';
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

/**
 * Whether `value` is an S2SP result with neither a body nor a `resource_url`: the text of a sync
 * result whose body is in `structuredContent` only (§7.11).
 */
function isBodyless(value: unknown): value is S2SPResult {
  const parsed = S2SPResultSchema.safeParse(value);
  return parsed.success && parsed.data.body === undefined && parsed.data.resource_url === undefined;
}

/**
 * The value of JSON text that opens with one of `opens` (after white space), else `undefined`.
 * The dispatcher rewrites only what it can read and passes everything else on untouched, so a
 * parse failure is no error here; the opening check spares parsing prose.
 */
function readJson(text: string, opens: '{' | '[' | '{['): unknown {
  const first = text.trimStart()[0];
  if (first === undefined || !opens.includes(first)) return undefined;
  try {
    return parseJsonText(text, notJson);
  } catch {
    return undefined;
  }
}

/** The failure {@link readJson} discards; never shown to anyone. */
const notJson = (reason: string) => new S2SPError('invalid_request', reason);

function rowIdsOf(abstractData: unknown): Set<number> | undefined {
  const rows = typeof abstractData === 'string' ? readJson(abstractData, '[') : abstractData;
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
 * - {@link S2SPDispatcher.onToolCall}: a `resource_url` that is a `ddi://` handle — in the
 *   arguments or in an object nested in them, such as one table of `query_tables` — is replaced
 *   by `body_data` holding those rows (only the rows named in that object's `abstract_data`,
 *   when it parses) — unless the server declares S2SP without the consumer role, which never
 *   receives them.
 *   `http(s)` URLs pass through untouched.
 *
 * Every `withS2SP` adapter (`@s2sp/client` for the MCP SDK, and one subpath per agent framework)
 * calls these for you and tells `onToolCall` which server the call goes to.
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
    // A host that declared it reads the body from structuredContent (§7.11) gets a text that is
    // that result without its body: the model reads it with the handle, as it reads a stripped one.
    let structured: SyncResult | undefined;
    const rewriteText = (text: string): string => {
      const json = readJson(text, '{');
      if (isSyncResult(json)) return JSON.stringify(strip(json));
      if (structured && isBodyless(json)) {
        const { resource_url: handle } = strip(structured);
        return JSON.stringify({ ...json, resource_url: handle });
      }
      return text;
    };

    if (typeof result === 'string') return rewriteText(result) as T;
    if (!isPlainObject(result)) return result;
    if (isSyncResult(result)) return strip(result) as T;
    if (!Array.isArray(result.content) || result.isError === true) return result;
    if (isSyncResult(result.structuredContent)) structured = result.structuredContent;

    const content = result.content.map((block: unknown) =>
      isPlainObject(block) && block.type === 'text' && typeof block.text === 'string'
        ? { ...block, text: rewriteText(block.text) }
        : block,
    );
    const out: Record<string, unknown> = { ...result, content };
    if (structured) out.structuredContent = strip(structured);
    return out as T;
  }

  /**
   * Rewrites a tool call's arguments before they go to the server: every object among them whose
   * `resource_url` is a `ddi://` handle — the arguments themselves, or an object nested in them,
   * such as `{"tables": {"alerts": {"resource_url": "ddi://…"}}}`, also inside an argument sent
   * as JSON text — gets `body_data` (a JSON string, as consumer tools declare it) in place of the
   * handle, holding the rows named in that object's `abstract_data` when it parses. A handle
   * named twice hands the same rows to both places. Nothing is taken unless every handle of the
   * call can be: a refused call leaves them all in the buffer, so it still works with the right
   * server.
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
    const sites = findHandleSites(args);
    if (sites.length === 0) return args;
    try {
      return this.#swapHandles(toolName, args, sites, server);
    } catch (error) {
      if (S2SPError.isInstance(error)) this.#onRefusal?.({ toolName, error });
      throw error;
    }
  }

  #swapHandles(
    toolName: string,
    args: Record<string, unknown>,
    sites: readonly Record<string, unknown>[],
    server: S2SPToolServer,
  ): Record<string, unknown> {
    // Every check before any handle is taken, so a refused call leaves them usable.
    assertTakesBodies(toolName, server);
    for (const site of sites) {
      const bodyData = site.body_data;
      if (bodyData !== undefined && bodyData !== null && bodyData !== '') {
        throw new S2SPError('invalid_request', resourceUrlOrBodyData);
      }
    }
    const handles = [...new Set(sites.map((site) => (site.resource_url as string).trim()))];
    // take() reports the missing one with its advice; checking first keeps the others unspent.
    const missing = handles.find((handle) => !this.buffer.has(handle));
    if (missing !== undefined) this.buffer.take(missing);
    const rowsOf = new Map(handles.map((handle) => [handle, this.buffer.take(handle)]));
    const swap = (site: Record<string, unknown>): Record<string, unknown> => {
      const rows = rowsOf.get((site.resource_url as string).trim()) as RowWithId[];
      const ids = rowIdsOf(site.abstract_data);
      const selected = ids ? rows.filter((row) => ids.has(row._row_id)) : rows;
      const { resource_url: _url, body_data: _body, ...rest } = site;
      return { ...rest, body_data: JSON.stringify(selected) };
    };
    return rewriteSites(args, new Set(sites), swap) as Record<string, unknown>;
  }
}

/** How deep objects are searched for a handle; S2SP arguments nest a level or two. */
const MAX_HANDLE_DEPTH = 8;

/** An argument sent as JSON text that may hold a handle: its value, else `undefined`. */
function argumentJson(text: string): unknown {
  return text.includes('ddi://') ? readJson(text, '{[') : undefined;
}

/**
 * Calls `visit` on each value of the arguments, objects and arrays first, then their members, to
 * {@link MAX_HANDLE_DEPTH}; an argument sent as JSON text (a string holding an object or array
 * with a handle in it) is read as its value.
 */
function walk(
  value: unknown,
  depth: number,
  visit: (value: Record<string, unknown>) => void,
): void {
  if (depth > MAX_HANDLE_DEPTH) return;
  const parsed = typeof value === 'string' && depth === 1 ? argumentJson(value) : value;
  if (Array.isArray(parsed)) {
    for (const item of parsed) walk(item, depth + 1, visit);
  } else if (isPlainObject(parsed)) {
    visit(parsed);
    for (const member of Object.values(parsed)) walk(member, depth + 1, visit);
  }
}

/**
 * True when a tool call's arguments carry a `ddi://` handle that {@link S2SPDispatcher.onToolCall}
 * swaps: a `resource_url` member of the arguments or of an object nested in them (also inside an
 * argument sent as JSON text). Adapters read a server's capabilities only for such calls.
 *
 * @param args - the arguments the LLM produced
 */
export function carriesHandle(args: Record<string, unknown>): boolean {
  return findHandleSites(args).length > 0;
}

/** The objects among the arguments whose `resource_url` is a `ddi://` handle. */
function findHandleSites(args: Record<string, unknown>): Record<string, unknown>[] {
  const sites: Record<string, unknown>[] = [];
  walk(args, 0, (object) => {
    if (DdiBuffer.isHandle(object.resource_url)) sites.push(object);
  });
  return sites;
}

/**
 * A copy of `value` with each object of `sites` replaced by `swap(object)`; an argument that was
 * JSON text stays JSON text. Parsed JSON text yields new objects, so its sites are found again by
 * their handle, not by identity.
 */
function rewriteSites(
  value: unknown,
  sites: ReadonlySet<Record<string, unknown>>,
  swap: (site: Record<string, unknown>) => Record<string, unknown>,
  depth = 0,
): unknown {
  if (depth > MAX_HANDLE_DEPTH) return value;
  if (typeof value === 'string' && depth === 1) {
    const parsed = argumentJson(value);
    if (parsed === undefined) return value;
    const rewritten = rewriteSites(parsed, textSites(parsed), swap, depth);
    return rewritten === parsed ? value : JSON.stringify(rewritten);
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => rewriteSites(item, sites, swap, depth + 1));
    return items.every((item, i) => item === value[i]) ? value : items;
  }
  if (!isPlainObject(value)) return value;
  const own = sites.has(value) ? swap(value) : value;
  let changed = own !== value;
  const out: Record<string, unknown> = { ...own };
  for (const [key, member] of Object.entries(own)) {
    const rewritten = rewriteSites(member, sites, swap, depth + 1);
    if (rewritten !== member) {
      out[key] = rewritten;
      changed = true;
    }
  }
  return changed ? out : value;
}

/** The handle sites of a value parsed from JSON text (walked from the depth it was found at). */
function textSites(parsed: unknown): Set<Record<string, unknown>> {
  const sites = new Set<Record<string, unknown>>();
  walk(parsed, 1, (object) => {
    if (DdiBuffer.isHandle(object.resource_url)) sites.add(object);
  });
  return sites;
}
