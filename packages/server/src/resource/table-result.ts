import {
  buildResourceUrl,
  generateToken,
  type RowWithId,
  S2SPError,
  type S2SPResult,
  tokenStorageKey,
} from '@s2sp/core';
import { callWithoutSyncMode } from '../advice.js';
import type { AdvertisedUrl } from '../data-plane/advertised-url.js';
import { type ClientQuota, clientKey } from '../limits/client-quota.js';
import { entryLabel } from '../logger.js';
import { readToolCall, type ToolCall } from '../mcp/tool-call.js';
import type { CallToolResult } from '../mcp-sdk.js';
import type { ResolvedOptions } from '../runtime/options.js';
import { errorResult, textResult } from '../tool-result.js';
import { assertKnownColumns } from './abstract-domains.js';
import { callEncoding, callSyncBody } from './call-declarations.js';
import { bodyRows, splitColumns } from './column-split.js';
import { plainResultTokens } from './plain-tokens.js';
import {
  buildAsyncResult,
  buildSyncResult,
  serializePlainResult,
  serializeS2SPResult,
  syncResultJson,
} from './s2sp-result.js';
import { modelTextOf, savingsReceipt, withReceipt } from './savings-receipt.js';
import { stringifyJson } from './stringify-json.js';
import { syncRows } from './sync-rows.js';
import { prepareTable, type RowJson, type SerializedTable, serializeTable } from './table.js';
import {
  abstractCosts,
  assertWithinBudget,
  fitBodyDomains,
  pageAsyncResult,
  readPage,
  resultTokens,
  s2spToolResult,
} from './table-pages.js';
import {
  parseTableRequest,
  type TableRequest,
  type TableResultArguments,
} from './table-request.js';
import { budgetTokens } from './token-estimate.js';

/**
 * What turning rows into an S2SP result needs from the runtime: its resolved options (the
 * lifetime, the sync-mode cap, the token budget, the abstract's encoding), the store and logger,
 * where the data plane is reached, and the per-client quota.
 */
export type TableResultRuntime = Pick<
  ResolvedOptions,
  'store' | 'ttlMs' | 'maxSyncBytes' | 'logger' | 'tokenBudget' | 'abstractEncoding'
> & {
  readonly advertisedUrl: AdvertisedUrl;
  /** Live entries per client; none: no per-client limit. */
  readonly quota?: ClientQuota;
};

/** Where a result is built for: the tool, and the request it came in. */
export interface TableResultContext {
  /** The tool's name, for logs. */
  readonly toolName?: string;
  /**
   * The tool call — the handler's `ctx` (MCP SDK v2) or `extra` (v1): its request URL may name the
   * data plane's base, and its caller is the quota's client unless `client` says otherwise.
   */
  readonly call?: ToolCall | undefined;
  /**
   * Columns known to exist besides those in the rows (a declared row schema), so that naming one
   * is not an error when no row happens to carry it.
   */
  readonly knownColumns?: readonly string[];
  /**
   * Who called, for the per-client quota. Default: `clientKey(call)`, which is one shared bucket
   * when there is no call.
   */
  readonly client?: string;
  /** This tool's token budget, when it differs from the server's. */
  readonly tokenBudget?: number;
  /**
   * Whether the caller can send a `next_cursor` back (default true). `false` for a tool whose own
   * parameters use `cursor`: a result over the budget is then refused with `payload_too_large`
   * instead of paged.
   */
  readonly paging?: boolean;
  /**
   * The JSON the rows were parsed from, for a caller that still holds it (the proxy): an async
   * result stores the rows from it, without stringifying them again or, from bytes, copying them.
   * Called at most once, when the rows are stored; hand each source over once (return `undefined`
   * afterwards), so that nothing keeps it once the store has the rows.
   */
  readonly rowJson?: () => RowJson | undefined;
  /**
   * Tokens of the plain result as the model would have read it, for the savings receipt, when the
   * caller knows better than the rows' compact JSON: the proxy counts the upstream's own answer
   * (`plainTextTokens`), which may be CSV or indented JSON. Default: the rows' compact JSON.
   */
  readonly plainTokens?: number;
}

/**
 * Turns a table and the checked S2SP arguments into the resource tool's result (PROTOCOL §2): the
 * plain JSON array without abstract domains; otherwise the column split, with the full rows
 * cached under a fresh token (async) or the body inline (sync).
 *
 * @throws S2SPError `invalid_rows`, `invalid_request` (unknown columns), `payload_too_large`,
 *   `invalid_config` (no trusted base URL), or the store's `store_full` / `unavailable`
 */
export async function buildTableResult(
  rows: unknown,
  request: TableRequest,
  runtime: TableResultRuntime,
  context: TableResultContext = {},
): Promise<CallToolResult> {
  const { domains, mode, filter } = request;
  const budget = context.tokenBudget ?? runtime.tokenBudget;
  const table = prepareTable(rows);
  if (domains.length === 0) return textResult(serializePlainResult(table));

  const declared = context.knownColumns ?? [];
  const known =
    declared.length === 0 ? table.columns : [...new Set([...table.columns, ...declared])];
  assertKnownColumns(domains, known, table.rows.length);
  const split = splitColumns(table, domains, filter);
  // What the model reads of the body columns: within a quarter of the budget, labelled if cut.
  const listed = fitBodyDomains(split.bodyDomains, budget);

  if (mode === 'sync') {
    // Measured against the budget before the body is made: a refused call makes no body rows.
    const result: S2SPResult = {
      ...buildSyncResult(split, []),
      ...listed,
      total_rows: table.rows.length,
      ...(filter && { matched_rows: split.abstract.length }),
    };
    const json = syncResultJson(result);
    assertWithinBudget(budgetTokens(json.withBody('[]')), budget, 'sync');
    result.body = bodyRows(table, split.bodyDomains, split.abstract);
    const body = stringifyJson(result.body, 'The S2SP result');
    // Joined from its parts, as serialising the whole result would make it: JSON.stringify's own
    // text is a chain of parts too, which the first read (the receipt's) copies into one string
    // once; a text read flat serialises as fast as a text made flat.
    const text = json.withBody(body);
    // UTF-8 takes 1 to 3 bytes a UTF-16 unit: a text within a third of the cap is within it
    // without being encoded (a copy of the whole result, on every call).
    const bytes =
      text.length * 3 <= runtime.maxSyncBytes ? 0 : new TextEncoder().encode(text).byteLength;
    if (bytes > runtime.maxSyncBytes) {
      throw new S2SPError(
        'payload_too_large',
        `This sync-mode result is ${bytes} bytes, over the ${runtime.maxSyncBytes} the agent can carry. ${callWithoutSyncMode}`,
      );
    }
    // The plain rows from their halves in the text, unless a filter left rows out.
    const plainTokens = (): number =>
      plainResultTokens(
        table,
        filter ? undefined : syncRows(table, text, json.abstract, json.bodySpan(body.length)),
      );
    const receipt = savingsReceipt(
      table,
      result,
      split.bodyDomains.length,
      json.withoutBody,
      context.plainTokens ?? plainTokens(),
    );
    // A host that reads the body from structuredContent (§7.11) gets a text without it: the
    // object its model reads, so the rows cross the wire once instead of twice.
    const place = callSyncBody(readToolCall(context.call).meta);
    const shown = place === 'structured' ? json.withoutBody : text;
    return withReceipt(
      { content: [{ type: 'text', text: shown }], structuredContent: result },
      receipt,
    );
  }
  if (table.rows.length === 0) {
    // Nothing to fetch: no cache entry and no resource_url, the empty body inline (as in sync
    // mode, which every reader understands). Caching empty results let one client fill the
    // store with entries that cost nothing to make.
    const result = { ...buildSyncResult(split, []), ...listed };
    return {
      content: [{ type: 'text', text: serializeS2SPResult(result) }],
      structuredContent: result,
    };
  }

  // Resolve the address before caching, so a misconfigured server leaves no orphan entry.
  const base = runtime.advertisedUrl.resolve(readToolCall(context.call).url);
  const token = generateToken();
  const key = await tokenStorageKey(token);
  const resourceUrl = buildResourceUrl(base, token);
  const expiresAt = new Date(Date.now() + runtime.ttlMs);
  // Made whole only when it is the answer (within the budget): a large abstract is paged.
  const unpaged = (abstract?: RowWithId[]): S2SPResult => ({
    ...buildAsyncResult(split, { resourceUrl, expiresAt }, abstract),
    ...listed,
    total_rows: table.rows.length,
    ...(filter && { matched_rows: split.abstract.length }),
  });
  if (context.paging === false) {
    const costs = abstractCosts(split.abstract);
    assertWithinBudget(resultTokens(unpaged, split.abstract, costs, budget), budget, 'no-cursor');
  }
  const client = context.client ?? clientKey(context.call);
  let stored: SerializedTable | undefined = serializeTable(table, context.rowJson?.());
  // JSON characters of the rows, as the Redis store counts its budget: bytes for ASCII. From the
  // lengths: rows stored from bytes would each be decoded to be counted.
  let bytes = stored.rowLengths.length;
  for (const length of stored.rowLengths) bytes += length;
  const plainTokens = context.plainTokens ?? plainResultTokens(table, stored);
  runtime.quota?.reserve(client, key, runtime.ttlMs, bytes);
  try {
    await runtime.store.put(key, stored, { ttlMs: runtime.ttlMs });
  } catch (error) {
    runtime.quota?.release(key);
    throw error;
  }
  // The store has the rows now: the serialised copy (for rows stored from their texts, the text
  // they are slices of) need not wait for the pages, which a large table would hold for their
  // whole run.
  stored = undefined;
  let paged: S2SPResult | undefined;
  try {
    paged =
      context.paging === false
        ? undefined
        : await pageAsyncResult(
            {
              head: {
                total_rows: table.rows.length,
                abstract_domains: [...split.abstractDomains],
                ...listed,
                ...(filter && { matched_rows: split.abstract.length }),
              },
              rows: split.abstract,
              token,
              resourceUrl,
              expiresAt,
              budget,
            },
            runtime.store,
            runtime.quota && {
              reserve: (page, size) => runtime.quota?.reserve(client, page, runtime.ttlMs, size),
              release: (page) => runtime.quota?.release(page),
            },
          );
  } catch (error) {
    // A page the store refused (full, or down): the result is not returned, so nothing may stay
    // behind counting against the budget and the client's quota until the TTL.
    await runtime.store.take(key).then(
      (taken) => taken?.release?.(),
      () => undefined,
    );
    runtime.quota?.release(key);
    throw error;
  }
  const result = paged ?? unpaged();
  runtime.logger.info('resource tool: cached', {
    tool: context.toolName,
    entry: entryLabel(key),
    rows: table.rows.length,
    ...(result.next_cursor !== undefined && { pages: 'yes' }),
  });
  const encoding = callEncoding(runtime.abstractEncoding, readToolCall(context.call).meta);
  const answer = s2spToolResult(result, encoding, declared);
  const receipt = savingsReceipt(
    table,
    result,
    split.bodyDomains.length,
    modelTextOf(answer),
    plainTokens,
  );
  return withReceipt(answer, receipt);
}

/**
 * The next page of an earlier async result (PROTOCOL §7, paging), read from the store without
 * running the tool's handler.
 *
 * @throws S2SPError `invalid_request` (not a cursor), `not_found` (expired or already read)
 */
export async function buildPageResult(
  cursor: string,
  runtime: TableResultRuntime,
  context: TableResultContext = {},
): Promise<CallToolResult> {
  const call = readToolCall(context.call);
  const base = runtime.advertisedUrl.resolve(call.url);
  const result = await readPage(cursor, runtime.store, base, runtime.quota);
  const encoding = callEncoding(runtime.abstractEncoding, call.meta);
  return s2spToolResult(result, encoding, context.knownColumns ?? []);
}

/**
 * Answers one resource-tool call: checks the S2SP arguments, then the page a cursor names, or the
 * rows (asked for only then, so a bad call or a cursor never runs the handler) as the PROTOCOL §2
 * result. Never throws: a failure is logged by code and returned as a tool error result.
 *
 * @param rows - produces the table; not called for a bad call or a cursor
 */
export async function answerTableCall(
  args: TableResultArguments,
  rows: () => unknown,
  runtime: TableResultRuntime,
  context: TableResultContext = {},
): Promise<CallToolResult> {
  try {
    const request = parseTableRequest(args);
    if (request.cursor !== undefined)
      return await buildPageResult(request.cursor, runtime, context);
    return await buildTableResult(await rows(), request, runtime, context);
  } catch (error) {
    runtime.logger.warn('resource tool: failed', {
      tool: context.toolName,
      code: S2SPError.codeOf(error),
    });
    return errorResult(error);
  }
}
