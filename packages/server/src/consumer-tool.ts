import {
  CONSUMER_TOOL_PARAMETERS,
  type FetchBodyOptions,
  fetchBody,
  type Logger,
  matchesFilter,
  type RowWithId,
} from '@s2sp/core';
import {
  applyColumnMapping,
  errorCode,
  isPlainObject,
  mergeRows,
  parseConsumerArguments,
  pickRows,
} from '@s2sp/core/internal';
import { z } from 'zod';
import { CONSUMER_TOOL_LINE } from './guidance.js';
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
  /** Origins a `resource_url` may point at. Recommended: the URL comes from an LLM. */
  readonly allowedOrigins?: readonly string[];
  /** Time limit of a data-plane fetch. Default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Largest data-plane response accepted. Default 64 MiB. */
  readonly maxResponseBytes?: number;
  /** The `fetch` to use. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /**
   * Without an allow-list, refuse every `resource_url` whose address is not on the public
   * internet (loopback, private, link-local such as cloud metadata, IPv4-mapped forms…), checked
   * for IP literals, for every resolved address and for the connected socket. Node only; see
   * `createPublicOnlyFetch` in `@s2sp/core/node`. Ignored when `fetch` is given.
   */
  readonly publicOnly?: boolean;
}

// Declared as strings (as the seed says, so any MCP client can call the tool) but accepting
// already-parsed JSON too: the JSON Schema says string, the runtime takes both.
const jsonText = (description: string) => z.unknown().meta({ type: 'string', description });

/** The four parameters S2SP adds to every consumer tool (PROTOCOL §4). */
export const consumerParameters = {
  abstract_data: jsonText(
    'JSON array of the abstract rows to process, each with its _row_id, as the resource tool returned them (filtered to the rows you want).',
  ).optional(),
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

/**
 * The optional parameters S2SP adds to consumer tools besides the four of PROTOCOL §4 (hand-off
 * extensions, PROTOCOL §7). A tool declaring a parameter of the same name keeps its own.
 */
export const consumerExtensionParameters = {
  row_ids: z
    .unknown()
    .meta({
      type: ['string', 'array'],
      description:
        'Instead of abstract_data: the _row_id values of the rows to process, e.g. [0,4,7], with resource_url.',
    })
    .optional(),
  filter: z
    .unknown()
    .meta({
      type: ['string', 'object'],
      description:
        'Instead of abstract_data: the filter that selects the rows (same grammar as the resource tool), with resource_url.',
    })
    .optional(),
};

/** The consumer extension parameters a tool gets: those its own parameters do not already use. */
export function consumerExtensionsFor(shape: z.ZodRawShape): z.ZodRawShape {
  return Object.fromEntries(
    Object.entries(consumerExtensionParameters).filter(([key]) => !Object.hasOwn(shape, key)),
  );
}

/** The tool description: the author's text, then how to pass S2SP data. */
export function consumerToolDescription(
  description: string,
  guidance: 'description' | 'instructions' = 'description',
): string {
  if (guidance === 'instructions') return `${description.trim()}\n\n${CONSUMER_TOOL_LINE}`;
  return (
    `${description.trim()}\n\n` +
    'S2SP consumer: pass abstract_data (the abstract rows you chose, with _row_id) and the resource_url from the resource tool. ' +
    'The tool fetches the remaining columns directly from the resource server and merges them by _row_id; the full rows never pass through you. ' +
    'Instead of abstract_data you may pass row_ids (the _row_id values you keep) or the filter you used, with the resource_url.'
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
  options: { readonly fetch: ConsumerFetchOptions; readonly logger: Logger },
): (args: Record<string, unknown>, extra: ToolExtra) => Promise<CallToolResult> {
  assertNoReservedParameters(name, config.inputSchema ?? {}, CONSUMER_TOOL_PARAMETERS);
  const { logger } = options;
  const extensions = Object.keys(consumerExtensionsFor(config.inputSchema ?? {}));
  // Loaded on first use: it needs node:http, which the rest of this package's main entry does not.
  let publicOnlyFetch: Promise<typeof fetch> | undefined;
  const fetchFor = (): Promise<typeof fetch> | undefined => {
    if (options.fetch.fetch) return Promise.resolve(options.fetch.fetch);
    if (!options.fetch.publicOnly) return undefined;
    publicOnlyFetch ??= import('@s2sp/core/node').then((m) => m.createPublicOnlyFetch());
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
      // No abstract rows means no rows: never fetch, since an empty row_ids asks for all of them.
      const wanted = abstract ? abstract.length > 0 : true;
      if (wanted && request.resourceUrl !== undefined) {
        const customFetch = await fetchFor();
        const ids = abstract ? abstract.map((row) => row._row_id) : request.rowIds;
        const fetchOptions: FetchBodyOptions = {
          ...(ids && { rowIds: ids }),
          signal: extra.signal,
          ...(options.fetch.allowedOrigins && { allowedOrigins: options.fetch.allowedOrigins }),
          ...(options.fetch.timeoutMs !== undefined && { timeoutMs: options.fetch.timeoutMs }),
          ...(options.fetch.maxResponseBytes !== undefined && {
            maxBytes: options.fetch.maxResponseBytes,
          }),
          ...(customFetch && { fetch: customFetch }),
        };
        const started = Date.now();
        const fetched = await fetchBody(request.resourceUrl, fetchOptions);
        logger.info('consumer tool: fetched body', {
          tool: name,
          rows: fetched.body.length,
          ms: Date.now() - started,
        });
        const source = { source: 'The resource_url' };
        if (abstract) rows = mergeRows(abstract, fetched.body, source);
        else rows = request.rowIds ? pickRows(fetched.body, request.rowIds, source) : fetched.body;
      } else if (wanted && request.bodyRows !== undefined) {
        if (abstract) rows = mergeRows(abstract, request.bodyRows, { source: 'body_data' });
        else if (request.rowIds)
          rows = pickRows(request.bodyRows, request.rowIds, { source: 'body_data' });
      }
      const filter = request.filter;
      if (filter) rows = rows.filter((row) => matchesFilter(row, filter));
      rows = applyColumnMapping(rows, request.columnMapping);
      return toCallToolResult(await handler(rows, own as z.infer<z.ZodObject<TShape>>, extra));
    } catch (error) {
      logger.warn('consumer tool: failed', { tool: name, code: errorCode(error) });
      return errorResult(error);
    }
  };
}
