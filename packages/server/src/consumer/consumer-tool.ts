import {
  type FetchBodyOptions,
  fetchBody,
  type Logger,
  matchesFilter,
  PROTOCOL,
  type RowWithId,
  S2SPError,
} from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { FetchBodyLimitsSchema, stringList } from '@s2sp/core/options';
import { z } from 'zod';
import type { CallToolResult, ToolAnnotations, ToolExtra } from '../mcp-sdk.js';
import { assertNoReservedParameters } from '../resource/resource-tool.js';
import {
  type ConcurrencyLimit,
  ConcurrencyLimitOptionsSchema,
} from '../runtime/concurrency-limit.js';
import { errorResult, textResult } from '../tool-result.js';
import {
  applyColumnMapping,
  mergeRows,
  parseConsumerArguments,
  pickRows,
} from './consumer-arguments.js';
import { consumerExtensionsFor } from './consumer-parameters.js';

/** Configuration of a consumer tool. */
export interface ConsumerToolConfig<TShape extends z.ZodRawShape> {
  /** Human-readable name for UIs. */
  readonly title?: string;
  /** What the tool does with the rows. S2SP appends how to pass them. */
  readonly description: string;
  /** The tool's own parameters besides the four S2SP ones. */
  readonly inputSchema?: TShape;
  /** MCP tool annotations. */
  readonly annotations?: ToolAnnotations;
}

/**
 * What a consumer handler may return: a string (one text block), a full MCP `CallToolResult`
 * (any content, such as an image), or any other JSON value (sent as compact JSON text, and as
 * `structuredContent` when it is an object).
 */
export type ConsumerToolOutput =
  | string
  | CallToolResult
  | Record<string, unknown>
  | readonly unknown[]
  | number
  | boolean
  | null
  | undefined;

/**
 * What S2SP knows about a consumer call besides the rows: which columns the model chose and saw
 * (so a tool can keep every other column's values out of its result) and where the body came from.
 */
export interface ConsumerCallInfo {
  /** Columns of `abstract_data` (after `column_mapping`), without `_row_id`: the model saw these. */
  readonly abstractColumns: readonly string[];
  /**
   * Where the other columns came from: fetched from `resource_url`, passed inline as `body_data`
   * (sync mode), or `none` (only the abstract rows were passed).
   */
  readonly bodySource: 'resource_url' | 'body_data' | 'none';
}

/** A consumer tool's handler: receives the merged rows (PROTOCOL §4) and its own arguments. */
export type ConsumerToolHandler<TShape extends z.ZodRawShape> = (
  rows: RowWithId[],
  args: z.infer<z.ZodObject<TShape>>,
  extra: ToolExtra,
  info: ConsumerCallInfo,
) => ConsumerToolOutput | Promise<ConsumerToolOutput>;

/** Fetch settings of a server's consumer tools (PROTOCOL §4). */
export interface ConsumerFetchOptions {
  /**
   * Origins a `resource_url` may point at. Recommended: the URL comes from an LLM. Listed origins
   * are fetched whatever their address (list a loopback origin to use one); an entry may carry a
   * path prefix (`https://gateway.example.com/weather`).
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Path prefixes allowed before `/s2sp/data/{token}` on any origin. Default none: the path must
   * be exactly `/s2sp/data/{token}` at the origin root.
   */
  readonly pathPrefixes?: readonly string[];
  /**
   * Without an allow-list: `'public'` (the default) fetches only from the public
   * internet — loopback, private, link-local (cloud metadata) and local-only names are refused,
   * checked for IP literals, for every resolved address and for the connected socket (see
   * `createPublicOnlyFetch` in `@s2sp/core/node`); `'any'` fetches from anywhere (development
   * only). With a custom `fetch`, only IP literals and local names are checked here.
   */
  readonly destinations?: FetchBodyOptions['destinations'];
  /** Time limit of a data-plane fetch. Default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Largest data-plane response accepted. Default 64 MiB. */
  readonly maxResponseBytes?: number;
  /** The `fetch` to use. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /**
   * How many data-plane fetches this server's consumer tools run at once. Default 4. Each may
   * hold up to `maxResponseBytes` while it is parsed, so this bounds the memory one burst of
   * calls (or one JSON-RPC batch) can take.
   */
  readonly maxConcurrentFetches?: number;
  /** How many more fetches may wait for a slot; beyond that a call fails at once. Default 16. */
  readonly maxQueuedFetches?: number;
}

/** Default of {@link ConsumerFetchOptions.maxConcurrentFetches}. */
export const DEFAULT_MAX_CONCURRENT_FETCHES = 4;
/** Default of {@link ConsumerFetchOptions.maxQueuedFetches}. */
export const DEFAULT_MAX_QUEUED_FETCHES = 16;

/** An allowed origin, or an origin with the path prefix its resource_urls live under. */
const AllowedOriginSchema = z.string().transform((value, context) => {
  try {
    const url = new URL(value);
    if (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      !url.username &&
      !url.password &&
      !url.search &&
      !url.hash
    )
      return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    // reported below
  }
  context.issues.push({
    code: 'custom',
    input: '',
    message:
      'must be http(s) origins such as http://127.0.0.1:3001, optionally with a path prefix such as https://gateway.example.com/weather',
  });
  return z.NEVER;
});

/** A path prefix (`/api`), normalised with one leading and no trailing slash. */
const PathPrefixSchema = z
  .string()
  .regex(/^\/?[A-Za-z0-9._~!$&'()*+,;=:@%-]+(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*\/?$/)
  .transform((value) => `/${value.replace(/^\/+|\/+$/g, '')}`)
  .meta({ allowed: 'paths such as /api' });

/**
 * The options of a server's consumer fetches ({@link ConsumerFetchOptions}): rules, defaults and
 * the environment variables `loadConsumerEnv` reads. The time and size limits are
 * `fetchBody`'s own, the concurrency `createConcurrencyLimit`'s.
 */
export const ConsumerFetchOptionsSchema = z.object({
  allowedOrigins: stringList(AllowedOriginSchema).optional().meta({
    env: 'S2SP_ALLOWED_ORIGINS',
    description:
      'Origins a consumer may fetch from, loopback ones included; an entry may carry a path prefix (`https://gateway.example.com/weather`). Set it in production.',
  }),
  destinations: z.enum(['public', 'any']).default('public').meta({
    env: 'S2SP_CONSUMER_DESTINATIONS',
    description:
      "Without an allow-list: `'public'` fetches only from public internet addresses (IP literals, every resolved address and the connected socket are checked); `'any'` from anywhere (development only).",
  }),
  pathPrefixes: stringList(PathPrefixSchema).optional().meta({
    env: 'S2SP_PATH_PREFIXES',
    description:
      'Path prefixes allowed before `/s2sp/data/{token}` on any origin; otherwise the path must be exactly that.',
  }),
  timeoutMs: FetchBodyLimitsSchema.shape.timeoutMs,
  maxResponseBytes: FetchBodyLimitsSchema.shape.maxBytes.describe(
    'Largest data-plane response. Compressed answers are refused (`Accept-Encoding: identity`).',
  ),
  fetch: z
    .custom<typeof fetch>((value) => typeof value === 'function')
    .optional()
    .meta({ allowed: 'a fetch function', type: 'function', defaultText: 'public-only fetch' }),
  maxConcurrentFetches: ConcurrencyLimitOptionsSchema.shape.concurrency
    .default(DEFAULT_MAX_CONCURRENT_FETCHES)
    .meta({
      env: 'S2SP_MAX_CONCURRENT_FETCHES',
      description: 'Data-plane fetches at once per server.',
    }),
  maxQueuedFetches: ConcurrencyLimitOptionsSchema.shape.queue
    .unwrap()
    .default(DEFAULT_MAX_QUEUED_FETCHES)
    .describe(
      'Fetches that may wait; beyond that a consumer call fails at once with "busy, retry".',
    ),
} satisfies Record<keyof ConsumerFetchOptions, z.ZodType>);

function toCallToolResult(output: ConsumerToolOutput): CallToolResult {
  if (typeof output === 'string') return textResult(output);
  if (output === undefined) return { content: [] };
  if (isPlainObject(output) && Array.isArray(output.content)) return output as CallToolResult;
  const result = textResult(JSON.stringify(output));
  if (isPlainObject(output)) result.structuredContent = output;
  return result;
}

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

/** Builds the MCP callback of a consumer tool: resolve, merge, rename, then the handler. */
export function createConsumerToolCallback<TShape extends z.ZodRawShape>(
  name: string,
  config: ConsumerToolConfig<TShape>,
  handler: ConsumerToolHandler<TShape>,
  options: {
    readonly fetch: ConsumerFetchOptions;
    readonly logger: Logger;
    /** Shared by every consumer tool of the server; without one, fetches are not limited. */
    readonly fetchLimit?: ConcurrencyLimit;
  },
): (args: Record<string, unknown>, extra: ToolExtra) => Promise<CallToolResult> {
  assertNoReservedParameters(name, config.inputSchema ?? {}, PROTOCOL.consumerToolParameters);
  const { logger } = options;
  const extensions = Object.keys(consumerExtensionsFor(config.inputSchema ?? {}));
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

  return async (args, extra) => {
    const { abstract_data, resource_url, body_data, column_mapping, ...own } = args;
    const selection: Record<string, unknown> = {};
    for (const key of extensions) {
      selection[key] = own[key];
      delete own[key];
    }
    try {
      const request = parseConsumerArguments({
        abstract_data,
        resource_url,
        body_data,
        column_mapping,
        ...selection,
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
          signal: extra.signal,
          ...(options.fetch.allowedOrigins && { allowedOrigins: options.fetch.allowedOrigins }),
          ...(options.fetch.pathPrefixes && { pathPrefixes: options.fetch.pathPrefixes }),
          ...(options.fetch.destinations && { destinations: options.fetch.destinations }),
          ...(options.fetch.timeoutMs !== undefined && { timeoutMs: options.fetch.timeoutMs }),
          ...(options.fetch.maxResponseBytes !== undefined && {
            maxBytes: options.fetch.maxResponseBytes,
          }),
          ...(customFetch && { fetch: customFetch }),
        };
        const started = Date.now();
        const resourceUrl = request.resourceUrl;
        const fetched = await (options.fetchLimit
          ? options.fetchLimit.run(() => fetchBody(resourceUrl, fetchOptions))
          : fetchBody(resourceUrl, fetchOptions));
        logger.info('consumer tool: fetched body', {
          tool: name,
          rows: fetched.body.length,
          ms: Date.now() - started,
        });
        const source = { source: 'The resource_url' };
        if (abstract) rows = mergeRows(abstract, fetched.body, source);
        else rows = request.rowIds ? pickRows(fetched.body, request.rowIds, source) : fetched.body;
        bodySource = 'resource_url';
      } else if (wanted && request.bodyRows !== undefined) {
        if (abstract) rows = mergeRows(abstract, request.bodyRows, { source: 'body_data' });
        else if (request.rowIds)
          rows = pickRows(request.bodyRows, request.rowIds, { source: 'body_data' });
        bodySource = 'body_data';
      } else if (request.resourceUrl !== undefined || request.bodyRows !== undefined) {
        bodySource = request.resourceUrl !== undefined ? 'resource_url' : 'body_data';
      }
      const filter = request.filter;
      if (filter) rows = rows.filter((row) => matchesFilter(row, filter));
      const info: ConsumerCallInfo = {
        // Handed off by row_ids or filter, no column is known to be abstract: the handler then
        // treats every column as body (the safe side for what it may quote back to a model).
        abstractColumns: abstractColumnsOf(abstract ?? [], request.columnMapping),
        bodySource,
      };
      rows = applyColumnMapping(rows, request.columnMapping);
      return toCallToolResult(
        await handler(rows, own as z.infer<z.ZodObject<TShape>>, extra, info),
      );
    } catch (error) {
      logger.warn('consumer tool: failed', { tool: name, code: S2SPError.codeOf(error) });
      return errorResult(error);
    }
  };
}
