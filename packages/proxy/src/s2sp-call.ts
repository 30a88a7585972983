/**
 * The proxy's one seam to `@s2sp/server`: the data plane, the parameters and guidance a table tool
 * gains, and turning rows plus the S2SP arguments into the PROTOCOL §2 result.
 *
 * TEMPORARY: built from `@s2sp/core` pieces until `createS2SP()` lands in `@s2sp/server`; then
 * this file becomes a thin wrapper around it and nothing else in the proxy changes.
 *
 * @module
 */
import {
  assertKnownColumns,
  type BodyStore,
  bodyRows,
  buildAsyncResult,
  buildResourceUrl,
  buildSyncResult,
  createMemoryStore,
  DEFAULT_TTL_SECONDS,
  generateToken,
  parseAbstractDomains,
  prepareTable,
  S2SPError,
  serializeS2SPResult,
  serializeTable,
  splitColumns,
  tokenStorageKey,
} from '@s2sp/core';
import { createDataPlaneApp, type Logger } from '@s2sp/server';
import type { Hono } from 'hono';
import type { CallToolResult } from './mcp-sdk.js';

/** Options for {@link createS2SPCall}. */
export interface S2SPCallOptions {
  /** Base URL advertised in `resource_url`s. */
  readonly publicUrl: string;
  readonly store?: BodyStore;
  readonly ttlSeconds?: number;
  readonly logger: Logger;
}

/** What the proxy needs from S2SP. */
export interface S2SPCall {
  /** Serves `/s2sp/data/:token` and `/s2sp/health`. */
  readonly dataPlane: Hono;
  /** JSON Schema properties a table tool gains (`abstract_domains`, `mode`). */
  readonly parameters: Readonly<Record<string, Record<string, unknown>>>;
  /** The S2SP guidance appended to a table tool's description. */
  describe(description: string | undefined): string;
  /** Rows plus the S2SP arguments → the PROTOCOL §2 result, or an `isError` result. */
  resourceResult(
    rows: readonly object[],
    args: { abstract_domains?: unknown; mode?: unknown },
    context: { toolName: string; knownColumns?: readonly string[] },
  ): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Creates the S2SP seam. */
export function createS2SPCall(options: S2SPCallOptions): S2SPCall {
  const ownsStore = options.store === undefined;
  const store = options.store ?? createMemoryStore();
  const ttlMs = Math.round((options.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000);
  const dataPlane = createDataPlaneApp({ store, logger: options.logger });
  return {
    dataPlane,
    parameters: {
      abstract_domains: {
        anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
        description:
          'Columns you need to see to filter or reason, as few as possible: a comma-separated string ("event,severity") or a JSON array. Omit for a plain result with every column.',
      },
      mode: {
        type: 'string',
        enum: ['async', 'sync'],
        description:
          '"async" (default): the other columns stay on the proxy behind a single-use resource_url. "sync": they come back inline as body.',
      },
    },
    describe(description) {
      const minutes = Math.round(ttlMs / 60_000);
      return `${(description ?? '').trim()}\n\nS2SP: this tool returns a table. Set abstract_domains to the FEW columns you need to filter or reason; you get those columns plus a _row_id per row, and a resource_url for the full rows. Pass the rows you keep (with their _row_id) and the resource_url to an S2SP consumer tool, which fetches the remaining columns directly. The resource_url works once and expires after ${minutes} minutes.`.trimStart();
    },
    async resourceResult(rows, args, context) {
      try {
        const domains = parseAbstractDomains(args.abstract_domains);
        const table = prepareTable(rows);
        const known = [...new Set([...table.columns, ...(context.knownColumns ?? [])])];
        assertKnownColumns(domains, known, table.rows.length);
        const split = splitColumns(table, domains);
        if (args.mode !== undefined && args.mode !== 'async' && args.mode !== 'sync') {
          throw new S2SPError('invalid_request', 'mode must be "async" or "sync".');
        }
        let result: ReturnType<typeof buildSyncResult>;
        if (args.mode === 'sync') {
          result = buildSyncResult(split, bodyRows(table, split.bodyDomains));
        } else {
          const token = generateToken();
          await store.put(await tokenStorageKey(token), serializeTable(table), { ttlMs });
          result = buildAsyncResult(split, {
            resourceUrl: buildResourceUrl(options.publicUrl, token),
            expiresAt: new Date(Date.now() + ttlMs),
          });
        }
        return {
          content: [{ type: 'text', text: serializeS2SPResult(result) }],
          structuredContent: result as unknown as Record<string, unknown>,
        };
      } catch (error) {
        const code = S2SPError.isInstance(error) ? error.code : 'internal';
        return {
          isError: true,
          content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
          _meta: { 's2sp/error-code': code },
        };
      }
    },
    async close() {
      if (ownsStore) await store.close();
    },
  };
}
