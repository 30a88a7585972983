/**
 * One `tools/call` through the proxy: strip the S2SP arguments, forward, and either return the
 * upstream's result untouched (no `abstract_domains`) or turn its table into an S2SP result.
 *
 * @module
 */

import { type Row, S2SPError } from '@s2sp/core';
import {
  type ClientConcurrencyLimit,
  clientKey,
  type Logger,
  parseTableRequest,
  type TableRequest,
} from '@s2sp/server';
import type {
  CallToolResult,
  RequestHandlerExtra,
  ServerNotification,
  ServerRequest,
} from '../mcp-sdk.js';
import type { ForwardOptions, Upstream } from '../upstream/upstream.js';
import type { S2SPCall } from './s2sp-call.js';
import { findTable } from './table-detect.js';
import type { TableTools } from './table-tools.js';

/** What a call needs from the proxy. */
export interface ToolCallContext {
  readonly upstream: Upstream;
  /** Tool calls running per downstream client (`clientKey`): one client cannot take them all. */
  readonly callsPerClient: ClientConcurrencyLimit;
  readonly tables: TableTools;
  readonly s2sp: () => S2SPCall;
  readonly logger: Logger;
  /** Largest text block parsed as JSON when looking for a table. */
  readonly maxTextLength: number;
  /** Tells every downstream client that the tool list changed. */
  readonly toolsChanged: () => void;
  /** Makes sure the registry has seen the upstream's definition of `name` (lists tools once). */
  readonly learnTool: (name: string) => Promise<void>;
  /**
   * The downstream session the call is made for (its `Server`), so that what the upstream sends
   * about the call (log messages) goes to that session only.
   */
  readonly caller?: object;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The union of row keys, in first-seen order. */
export function columnsOf(rows: readonly Row[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

function errorResult(code: string, message: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: { 's2sp/error-code': code },
  };
}

/** Forwards a request's progress notifications to the downstream client, under its own token. */
export function progressRelay(
  extra: Extra,
):
  | { onprogress: (progress: { progress: number; total?: number; message?: string }) => void }
  | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return {
    onprogress: (progress) => {
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: { ...progress, progressToken: token },
        })
        .catch(() => {});
    },
  };
}

/**
 * What a request forwarded upstream on behalf of one downstream request carries: its abort
 * signal, its progress relay (the SDK routes progress by token to this request only) and the
 * session it is made for.
 *
 * @param extra - the downstream request's signal, progress token and notification sender
 * @param caller - the downstream session (its `Server`)
 */
export function forwardOptions(extra: Extra, caller: object | undefined): ForwardOptions {
  return { signal: extra.signal, ...progressRelay(extra), ...(caller && { caller }) };
}

/**
 * Handles one `tools/call`.
 *
 * @param params - the downstream request's params
 * @param extra - the downstream request's signal, progress token and notification sender
 */
export async function callTool(
  context: ToolCallContext,
  params: ToolCallParams,
  extra: Extra,
): Promise<CallToolResult> {
  try {
    return await context.callsPerClient.run(clientKey(extra), () =>
      callToolNow(context, params, extra),
    );
  } catch (error) {
    if (!S2SPError.isInstance(error) || error.code !== 'unavailable') throw error;
    context.logger.warn('tool call: client over its concurrency limit', { tool: params.name });
    return errorResult(error.code, error.message);
  }
}

type ToolCallParams = {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

async function callToolNow(
  context: ToolCallContext,
  params: ToolCallParams,
  extra: Extra,
): Promise<CallToolResult> {
  const { name } = params;
  await context.learnTool(name);
  const info = context.tables.info(name);
  const args = params.arguments ?? {};
  // A blocked tool (excluded, or with its own abstract_domains) gets its arguments untouched, and
  // so does an upstream's own `filter` or `cursor` (then that extension is off for the tool).
  const { abstract_domains, mode, ...own } = args;
  const s2spArgs: Record<string, unknown> = { abstract_domains, mode };
  for (const key of info.extensions) {
    s2spArgs[key] = own[key];
    delete own[key];
  }
  let request: TableRequest = { domains: [], mode: 'async' };
  if (!info.blocked) {
    try {
      request = parseTableRequest(s2spArgs);
    } catch (error) {
      if (!S2SPError.isInstance(error)) throw error;
      return errorResult(error.code, error.message);
    }
  }
  const resultContext = {
    toolName: name,
    knownColumns: info.declaredColumns,
    // Each downstream client (authenticated id, else its address) gets its own share of
    // maxEntriesPerClient: one caller paging large tables cannot use up everyone's room.
    client: clientKey(extra),
    // An upstream's own `cursor` leaves no way to send a next_cursor back: such a result is
    // refused over the budget (payload_too_large, advice to narrow it) instead of paged.
    ...(!info.extensions.includes('cursor') && { paging: false }),
  };
  // A page of an earlier result comes from the store: the upstream is not called again.
  if (request.cursor !== undefined)
    return context.s2sp().resourceResult([], s2spArgs, resultContext);
  const domains = request.domains;
  const forwarded =
    info.blocked || Object.values(s2spArgs).every((value) => value === undefined) ? args : own;

  let result: CallToolResult;
  try {
    result = (await context.upstream.request(
      {
        method: 'tools/call',
        params: { ...params, ...(params.arguments !== undefined && { arguments: forwarded }) },
      },
      forwardOptions(extra, context.caller),
    )) as CallToolResult;
  } catch (error) {
    if (S2SPError.isInstance(error)) {
      context.logger.warn('tool call: upstream failed', { tool: name, code: error.code });
      return errorResult(error.code, error.message);
    }
    throw error;
  }

  const inspect = !info.blocked && (domains.length > 0 || info.table || !result.isError);
  if (!inspect) return result;
  const found = findTable(result, {
    maxTextLength: context.maxTextLength,
    ...(info.pointer && { pointer: info.pointer }),
  });

  if (found.kind === 'table' && (found.rows.length > 0 || info.table)) {
    if (context.tables.observe(name, columnsOf(found.rows))) {
      context.logger.info('tool list: table columns learned', { tool: name });
      context.toolsChanged();
    }
  }
  if (domains.length === 0) return result;
  if (result.isError) return result;
  if (found.kind !== 'table') {
    return errorResult(
      'invalid_rows',
      `abstract_domains only works when "${name}" returns a table (a JSON array of objects), and this result is not one: ${found.reason}. Call "${name}" again without abstract_domains and mode to get its result as it is.`,
    );
  }
  return context.s2sp().resourceResult(found.rows, s2spArgs, resultContext);
}
