import {
  type FetchBodyOptions,
  fetchBody,
  type Logger,
  PROTOCOL,
  type RowWithId,
} from '@s2sp/core';
import { filterRows } from '@s2sp/core/store';
import type { ConcurrencyLimit } from '../limits/concurrency-limit.js';
import { traceFetch } from '../telemetry/fetch-span.js';
import {
  applyColumnMapping,
  type ConsumerArguments,
  mergeRows,
  parseConsumerArguments,
  pickRows,
} from './consumer-arguments.js';
import type { ConsumerCallInfo, ConsumerFetchOptions } from './consumer-options.js';

/** Options of one resolution; see `S2SP.resolveConsumerRows`. */
export interface ResolveConsumerRowsOptions {
  /** Aborts the data-plane fetch (pass the tool call's `extra.signal`). */
  readonly signal?: AbortSignal;
  /**
   * Arguments that select no rows (only `resource_url` or `body_data`) stand for every row of
   * the table, instead of being refused as a consumer tool refuses them (PROTOCOL §4 wants
   * `abstract_data`, or `row_ids`/`filter`, §7.4). Default `false`.
   */
  readonly wholeTable?: boolean;
  /**
   * Progress of the data-plane fetch (bytes, then rows), throttled; see
   * `FetchBodyOptions.onProgress`. A consumer tool passes MCP progress here when the client asked.
   */
  readonly onProgress?: FetchBodyOptions['onProgress'];
}

/** The rows consumer arguments stand for, and what S2SP knows about them. */
export interface ResolvedConsumerRows {
  /** The merged rows (PROTOCOL §4), after `column_mapping`. */
  readonly rows: RowWithId[];
  /** Which columns the model saw and where the body came from. */
  readonly info: ConsumerCallInfo;
}

/** Resolves consumer arguments to rows: the steps of every consumer call of one server. */
export type ConsumerRowResolver = (
  args: ConsumerArguments,
  options?: ResolveConsumerRowsOptions & {
    /** The consumer tool resolving, for the log line. */
    readonly tool?: string;
  },
) => Promise<ResolvedConsumerRows>;

function abstractColumnsOf(
  rows: readonly RowWithId[],
  mapping: Readonly<Record<string, string>> | undefined,
): string[] {
  // Only a column every abstract row carries is abstract: in a row without it, the merge fills the
  // value in from the body, so a key present in some rows would let body values pass as abstract.
  const [first, ...others] = rows;
  if (!first) return [];
  return Object.keys(first)
    .filter((key) => key !== '_row_id' && others.every((row) => Object.hasOwn(row, key)))
    .map((key) => (mapping && Object.hasOwn(mapping, key) ? (mapping[key] as string) : key));
}

/**
 * Creates a server's one consumer resolver: parse the S2SP arguments, fetch the body from the
 * `resource_url` under the fetch rules (allow-list, public destinations only, path, size cap,
 * timeout) and the server's shared fetch limit, or take `body_data`; merge by `_row_id`, select
 * by `row_ids` and `filter`, apply `column_mapping`. Every consumer tool and
 * `S2SP.resolveConsumerRows` run through it.
 *
 * @param options - the fetch settings, the logger, and the limit shared by the server's fetches
 */
export function createConsumerRowResolver(options: {
  readonly fetch: ConsumerFetchOptions;
  readonly logger: Logger;
  /** Shared by every consumer call of the server; without one, fetches are not limited. */
  readonly fetchLimit?: ConcurrencyLimit;
}): ConsumerRowResolver {
  const { logger } = options;
  // Loaded on first use: it needs node:http, which the rest of this package's main entry does not.
  let publicOnlyFetch: Promise<typeof fetch> | undefined;
  const fetchFor = (): Promise<typeof fetch> | undefined => {
    if (options.fetch.fetch) return Promise.resolve(options.fetch.fetch);
    // An allow-list is the boundary when given; 'any' turns the check off.
    if (options.fetch.allowedOrigins || options.fetch.destinations === 'any') return undefined;
    publicOnlyFetch ??= import('@s2sp/core/node').then(
      (m) => m.createPublicOnlyFetch(),
      () => {
        // Not Node (a worker runtime): IP literals and local names are still refused in core.
        logger.warn('consumer tool: node:http unavailable, resolved addresses are not checked');
        return globalThis.fetch;
      },
    );
    return publicOnlyFetch;
  };

  return async (args, resolveOptions = {}) => {
    const request = parseConsumerArguments(args, {
      wholeTable: resolveOptions.wholeTable === true,
    });
    const abstract = request.abstractRows;
    let rows: RowWithId[] = abstract ?? [];
    let bodySource: ConsumerCallInfo['bodySource'] = 'none';
    // No abstract rows means no rows: never fetch, since an empty row_ids asks for all of them.
    const wanted = abstract ? abstract.length > 0 : true;
    if (wanted && request.resourceUrl !== undefined) {
      const customFetch = await fetchFor();
      const ids = abstract ? abstract.map((row) => row._row_id) : request.rowIds;
      // More ids than a data plane takes by default: fetch the whole table and select below.
      const ask = ids && ids.length <= PROTOCOL.maxRequestRowIds ? ids : undefined;
      const fetchOptions: FetchBodyOptions = {
        ...(ask && { rowIds: ask }),
        ...(resolveOptions.signal && { signal: resolveOptions.signal }),
        ...(resolveOptions.onProgress && { onProgress: resolveOptions.onProgress }),
        ...(options.fetch.allowedOrigins && { allowedOrigins: options.fetch.allowedOrigins }),
        ...(options.fetch.pathPrefixes && { pathPrefixes: options.fetch.pathPrefixes }),
        ...(options.fetch.destinations && { destinations: options.fetch.destinations }),
        ...(options.fetch.timeoutMs !== undefined && { timeoutMs: options.fetch.timeoutMs }),
        ...(options.fetch.maxResponseBytes !== undefined && {
          maxBytes: options.fetch.maxResponseBytes,
        }),
        ...(options.fetch.fetchRetries !== undefined && { retries: options.fetch.fetchRetries }),
        ...(customFetch && { fetch: customFetch }),
      };
      const started = Date.now();
      const resourceUrl = request.resourceUrl;
      const fetchRows = () =>
        traceFetch(resourceUrl, (headers) => fetchBody(resourceUrl, { ...fetchOptions, headers }));
      const fetched = await (options.fetchLimit ? options.fetchLimit.run(fetchRows) : fetchRows());
      logger.info('consumer tool: fetched body', {
        ...(resolveOptions.tool !== undefined && { tool: resolveOptions.tool }),
        rows: fetched.body.length,
        ms: Date.now() - started,
      });
      const source = { source: 'The resource_url' };
      if (abstract) rows = mergeRows(abstract, fetched.body, source);
      else rows = request.rowIds ? pickRows(fetched.body, request.rowIds, source) : fetched.body;
      bodySource = 'resource_url';
    } else if (wanted && request.bodyRows !== undefined) {
      const source = { source: 'body_data' };
      if (abstract) rows = mergeRows(abstract, request.bodyRows, source);
      else
        rows = request.rowIds
          ? pickRows(request.bodyRows, request.rowIds, source)
          : request.bodyRows;
      bodySource = 'body_data';
    } else if (request.resourceUrl !== undefined || request.bodyRows !== undefined) {
      bodySource = request.resourceUrl !== undefined ? 'resource_url' : 'body_data';
    }
    const filter = request.filter;
    if (filter) rows = filterRows(rows, filter);
    const info: ConsumerCallInfo = {
      // Handed off by row_ids, filter or as a whole table, no column is known to be abstract: the
      // handler then treats every column as body (the safe side for what it may quote back).
      abstractColumns: abstractColumnsOf(abstract ?? [], request.columnMapping),
      bodySource,
    };
    return { rows: applyColumnMapping(rows, request.columnMapping), info };
  };
}
