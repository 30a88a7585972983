import {
  CONSUMER_TOOL_PARAMETERS,
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

// Accepts JSON text or the parsed value, and says so in the JSON Schema (`anyOf`), so that clients
// validating arguments against it (LangChain, Mastra) pass arrays and objects through. Row objects
// have open keys; `additionalProperties` is left unsaid because strict-schema converters refuse
// open objects. Optional ones accept `null` as absent (strict-schema clients send it).
const jsonValue = (shape: 'array' | 'object', description: string, optional = false) =>
  z.unknown().meta({
    anyOf: [
      { type: 'string' },
      shape === 'array' ? { type: 'array', items: { type: 'object' } } : { type: 'object' },
      ...(optional ? [{ type: 'null' }] : []),
    ],
    description,
  });

/** The four parameters S2SP adds to every consumer tool (PROTOCOL §4). */
export const consumerParameters = {
  abstract_data: jsonValue(
    'array',
    'The abstract rows to process, each with its _row_id, as the resource tool returned them (filtered to the rows you want): a JSON array, or its JSON text.',
  ),
  // Checked by the S2SP parser, whose error says what to pass instead.
  resource_url: z
    .unknown()
    .meta({
      anyOf: [{ type: 'string' }, { type: 'null' }],
      description:
        'The resource_url the resource tool returned (an http(s) URL in async mode, or the ddi:// handle your S2SP client gave you in sync mode). The tool fetches the remaining columns itself.',
    })
    .optional(),
  body_data: jsonValue(
    'array',
    'Body rows (with _row_id) when you have them inline instead of a resource_url: a JSON array or its JSON text. Omit when you pass resource_url.',
    true,
  ).optional(),
  column_mapping: jsonValue(
    'object',
    'Optional object renaming columns, {"oldName": "newName"}, or its JSON text.',
    true,
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

function abstractColumnsOf(
  rows: readonly RowWithId[],
  mapping: Readonly<Record<string, string>> | undefined,
): string[] {
  const columns = new Set<string>();
  for (const row of rows)
    for (const key of Object.keys(row))
      if (key !== '_row_id')
        columns.add(mapping && Object.hasOwn(mapping, key) ? (mapping[key] as string) : key);
  return [...columns];
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
    try {
      const request = parseConsumerArguments({
        abstract_data,
        resource_url,
        body_data,
        column_mapping,
      });
      let rows = request.abstractRows;
      let bodySource: ConsumerCallInfo['bodySource'] = 'none';
      // No abstract rows means no rows: never fetch, since an empty row_ids asks for all of them.
      if (rows.length > 0 && request.resourceUrl !== undefined) {
        const customFetch = await fetchFor();
        const fetchOptions: FetchBodyOptions = {
          rowIds: rows.map((row) => row._row_id),
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
        rows = mergeRows(rows, fetched.body, { source: 'The resource_url' });
        bodySource = 'resource_url';
      } else if (rows.length > 0 && request.bodyRows !== undefined) {
        rows = mergeRows(rows, request.bodyRows, { source: 'body_data' });
        bodySource = 'body_data';
      } else if (request.resourceUrl !== undefined || request.bodyRows !== undefined) {
        bodySource = request.resourceUrl !== undefined ? 'resource_url' : 'body_data';
      }
      const info: ConsumerCallInfo = {
        abstractColumns: abstractColumnsOf(request.abstractRows, request.columnMapping),
        bodySource,
      };
      rows = applyColumnMapping(rows, request.columnMapping);
      return toCallToolResult(
        await handler(rows, own as z.infer<z.ZodObject<TShape>>, extra, info),
      );
    } catch (error) {
      logger.warn('consumer tool: failed', { tool: name, code: errorCode(error) });
      return errorResult(error);
    }
  };
}
