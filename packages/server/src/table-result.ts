import {
  type BodyStore,
  buildResourceUrl,
  generateToken,
  type Logger,
  type Mode,
  ModeSchema,
  prepareTable,
  S2SPError,
  type S2SPResult,
  serializeTable,
  splitColumns,
  tokenStorageKey,
} from '@s2sp/core';
import {
  assertKnownColumns,
  bodyRows,
  buildAsyncResult,
  buildSyncResult,
  parseAbstractDomains,
  serializePlainResult,
  serializeS2SPResult,
} from '@s2sp/core/internal';
import type { AdvertisedUrl } from './advertised-url.js';
import type { ClientQuota } from './client-quota.js';
import { entryLabel } from './logger.js';
import type { CallToolResult } from './mcp-sdk.js';
import { textResult } from './tool-result.js';

/** What turning rows into an S2SP result needs from the runtime. */
export interface TableResultRuntime {
  readonly store: BodyStore;
  readonly ttlMs: number;
  readonly maxSyncBytes: number;
  readonly logger: Logger;
  readonly advertisedUrl: AdvertisedUrl;
  /** Live entries per client; none: no per-client limit. */
  readonly quota?: ClientQuota;
}

/** The S2SP arguments of a resource tool call, as the caller sent them (PROTOCOL §2). */
export interface TableResultArguments {
  /** Columns the model asked to see: a comma-separated string, a JSON-array string or an array. */
  readonly abstract_domains?: unknown;
  /** `"async"` (default) or `"sync"`; `null` counts as absent. */
  readonly mode?: unknown;
}

/** Where a result is built for: the tool, and the request it came in. */
export interface TableResultContext {
  /** The tool's name, for logs. */
  readonly toolName?: string;
  /** The MCP request (`extra.requestInfo`): its URL may name the data plane's base. */
  readonly requestInfo?: { readonly url?: URL | undefined } | undefined;
  /**
   * Columns known to exist besides those in the rows (a declared row schema), so that naming one
   * is not an error when no row happens to carry it.
   */
  readonly knownColumns?: readonly string[];
  /** Who called, for the per-client quota (see `clientKey`). Default: one shared bucket. */
  readonly client?: string;
}

/** The S2SP arguments, checked. */
export interface TableRequest {
  /** The abstract columns; empty for a plain result. */
  readonly domains: readonly string[];
  readonly mode: Mode;
}

/**
 * Checks the S2SP arguments — before a handler runs, so a bad call costs nothing upstream.
 *
 * @throws S2SPError `invalid_request` with advice for the model
 */
export function parseTableRequest(args: TableResultArguments): TableRequest {
  return { domains: parseAbstractDomains(args.abstract_domains), mode: parseMode(args.mode) };
}

function parseMode(mode: unknown): Mode {
  if (mode === undefined || mode === null || mode === '') return 'async';
  const parsed = ModeSchema.safeParse(mode);
  if (!parsed.success) {
    throw new S2SPError(
      'invalid_request',
      `mode must be "async" (the default: other columns stay on the server behind a resource_url) or "sync" (they come back inline), not ${JSON.stringify(mode)}.`,
    );
  }
  return parsed.data;
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
  const { domains, mode } = request;
  const table = prepareTable(rows);
  if (domains.length === 0) return textResult(serializePlainResult(table));

  const declared = context.knownColumns ?? [];
  const known =
    declared.length === 0 ? table.columns : [...new Set([...table.columns, ...declared])];
  assertKnownColumns(domains, known, table.rows.length);
  const split = splitColumns(table, domains);

  let result: S2SPResult;
  let text: string;
  if (mode === 'sync') {
    result = buildSyncResult(split, bodyRows(table, split.bodyDomains));
    text = serializeS2SPResult(result);
    const bytes = new TextEncoder().encode(text).byteLength;
    if (bytes > runtime.maxSyncBytes) {
      throw new S2SPError(
        'payload_too_large',
        `This sync-mode result is ${bytes} bytes, more than the ${runtime.maxSyncBytes} that can travel through the agent. Call again without mode (async mode keeps the body on this server), or ask for fewer rows.`,
      );
    }
  } else if (table.rows.length === 0) {
    // Nothing to fetch: no cache entry and no resource_url, the empty body inline (as in sync
    // mode, which every reader understands). Caching empty results let one client fill the
    // store with entries that cost nothing to make (issue 20).
    result = buildSyncResult(split, []);
    text = serializeS2SPResult(result);
  } else {
    // Resolve the address before caching, so a misconfigured server leaves no orphan entry.
    const base = runtime.advertisedUrl.resolve(context.requestInfo?.url);
    const token = generateToken();
    const key = await tokenStorageKey(token);
    runtime.quota?.reserve(context.client ?? 'anonymous', key, runtime.ttlMs);
    try {
      await runtime.store.put(key, serializeTable(table), { ttlMs: runtime.ttlMs });
    } catch (error) {
      runtime.quota?.release(key);
      throw error;
    }
    result = buildAsyncResult(split, {
      resourceUrl: buildResourceUrl(base, token),
      expiresAt: new Date(Date.now() + runtime.ttlMs),
    });
    text = serializeS2SPResult(result);
    runtime.logger.info('resource tool: cached', {
      tool: context.toolName,
      entry: entryLabel(key),
      rows: table.rows.length,
    });
  }
  return { content: [{ type: 'text', text }], structuredContent: result };
}
