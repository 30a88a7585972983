import {
  CONSUMER_TOOL_PARAMETERS,
  type ConsumerDestinations,
  type FetchBodyOptions,
  fetchBody,
  type Logger,
  type RowWithId,
} from '@s2sp/core';
import {
  applyColumnMapping,
  errorCode,
  isPlainObject,
  mergeRows,
  parseConsumerArguments,
} from '@s2sp/core/internal';
import { z } from 'zod';
import type { ConcurrencyLimit } from './concurrency-limit.js';
import type { CallToolResult, ToolAnnotations, ToolExtra } from './mcp-sdk.js';
import { assertNoReservedParameters } from './resource-tool.js';
import { errorResult, textResult } from './tool-result.js';

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

/** A consumer tool's handler: receives the merged rows (PROTOCOL §4) and its own arguments. */
export type ConsumerToolHandler<TShape extends z.ZodRawShape> = (
  rows: RowWithId[],
  args: z.infer<z.ZodObject<TShape>>,
  extra: ToolExtra,
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
   * Without an allow-list: `'public'` (the default since 0.2.0) fetches only from the public
   * internet — loopback, private, link-local (cloud metadata) and local-only names are refused,
   * checked for IP literals, for every resolved address and for the connected socket (see
   * `createPublicOnlyFetch` in `@s2sp/core/node`); `'any'` fetches from anywhere (development
   * only). With a custom `fetch`, only IP literals and local names are checked here.
   */
  readonly destinations?: ConsumerDestinations;
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
  /**
   * @deprecated Since 0.2.0 public destinations only is the default (`destinations: 'public'`);
   * `true` changes nothing, `false` is ignored. Use `destinations: 'any'` to turn it off.
   */
  readonly publicOnly?: boolean;
}

/** Default of {@link ConsumerFetchOptions.maxConcurrentFetches}. */
export const DEFAULT_MAX_CONCURRENT_FETCHES = 4;
/** Default of {@link ConsumerFetchOptions.maxQueuedFetches}. */
export const DEFAULT_MAX_QUEUED_FETCHES = 16;

// Declared as strings (as the seed says, so any MCP client can call the tool) but accepting
// already-parsed JSON too: the JSON Schema says string, the runtime takes both.
const jsonText = (description: string) => z.unknown().meta({ type: 'string', description });

/** The four parameters S2SP adds to every consumer tool (PROTOCOL §4). */
export const consumerParameters = {
  abstract_data: jsonText(
    'JSON array of the abstract rows to process, each with its _row_id, as the resource tool returned them (filtered to the rows you want).',
  ),
  resource_url: jsonText(
    'async mode: the resource_url the resource tool returned. The consumer fetches the remaining columns itself.',
  ).optional(),
  body_data: jsonText(
    'sync mode: JSON array of body rows (with _row_id). Leave empty when you pass resource_url.',
  ).optional(),
  column_mapping: jsonText(
    'Optional JSON object renaming columns, {"oldName": "newName"}.',
  ).optional(),
};

/** The tool description: the author's text, then how to pass S2SP data. */
export function consumerToolDescription(description: string): string {
  return (
    `${description.trim()}\n\n` +
    'S2SP consumer: pass abstract_data (the abstract rows you chose, with _row_id) and the resource_url from the resource tool. ' +
    'The tool fetches the remaining columns directly from the resource server and merges them by _row_id; the full rows never pass through you.'
  );
}

function toCallToolResult(output: ConsumerToolOutput): CallToolResult {
  if (typeof output === 'string') return textResult(output);
  if (output === undefined) return { content: [] };
  if (isPlainObject(output) && Array.isArray(output.content)) return output as CallToolResult;
  const result = textResult(JSON.stringify(output));
  if (isPlainObject(output)) result.structuredContent = output;
  return result;
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
  assertNoReservedParameters(name, config.inputSchema ?? {}, CONSUMER_TOOL_PARAMETERS);
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

  return async (args, extra) => {
    const { abstract_data, resource_url, body_data, column_mapping, ...own } = args;
    try {
      const request = parseConsumerArguments({
        abstract_data,
        resource_url,
        body_data,
        column_mapping,
      });
      let rows = request.abstractRows;
      // No abstract rows means no rows: never fetch, since an empty row_ids asks for all of them.
      if (rows.length > 0 && request.resourceUrl !== undefined) {
        const customFetch = await fetchFor();
        const fetchOptions: FetchBodyOptions = {
          rowIds: rows.map((row) => row._row_id),
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
        rows = mergeRows(rows, fetched.body, { source: 'The resource_url' });
      } else if (rows.length > 0 && request.bodyRows !== undefined) {
        rows = mergeRows(rows, request.bodyRows, { source: 'body_data' });
      }
      rows = applyColumnMapping(rows, request.columnMapping);
      return toCallToolResult(await handler(rows, own as z.infer<z.ZodObject<TShape>>, extra));
    } catch (error) {
      logger.warn('consumer tool: failed', { tool: name, code: errorCode(error) });
      return errorResult(error);
    }
  };
}
