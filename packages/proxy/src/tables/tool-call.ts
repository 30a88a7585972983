/**
 * One `tools/call` through the proxy: strip the S2SP arguments, forward, and either return the
 * upstream's result untouched (no `abstract_domains`) or turn its table into an S2SP result.
 *
 * @module
 */

import type { Logger } from '@s2sp/core';
import { parseRowFilter, S2SPError, type S2SPErrorCode, toolErrorResult } from '@s2sp/core';
import { otelIfLoaded, traceHeaders } from '@s2sp/core/otel';
import { callToolPlainly, nameTheTable, raiseAbstractBudget } from '../advice.js';
import { type CallToolResult, isInputRequiredResult } from '../mcp-sdk.js';
import { clientRoundOf, type RoundCall } from '../upstream/client-round.js';
import { decodeLargeTexts } from '../upstream/large-strings.js';
import type { ForwardOptions, Upstream } from '../upstream/upstream.js';
import { pickColumns } from './column-catalogue.js';
import { blockTexts, releaseTexts } from './detect/block-text.js';
import { type FoundTable, findTableSteps } from './detect/find-table.js';
import { describeBlocks } from './detect/other-blocks.js';
import { runInSlices } from './formats/parse-steps.js';
import { columnsOf, withOtherParts } from './other-parts.js';
import {
  type ClientConcurrencyLimit,
  type GatewayParts,
  MAX_ABSTRACT_BUDGET_TOKENS,
  MAX_TABLE_ARGUMENT,
  type RowJson,
  type S2SPCall,
  type TableRequest,
  type ToolCall,
} from './s2sp-call.js';
import type { TableToolInfo, TableTools } from './table-tools.js';

/** What a call needs from the proxy. */
export interface ToolCallContext {
  readonly upstream: Upstream;
  /** Tool calls running per downstream client (its `clientKey`): one client cannot take them all. */
  readonly callsPerClient: ClientConcurrencyLimit;
  readonly tables: TableTools;
  readonly s2sp: () => S2SPCall;
  /** The servers' parts the proxy works with (`GATEWAY_PARTS`), handed down by `createS2SPProxy`. */
  readonly parts: GatewayParts;
  readonly logger: Logger;
  /** Who a downstream client is (see `client-keys.ts`): what it taught the proxy is kept under it. */
  readonly clientKey: (call: ToolCall) => string;
  /** Largest text block parsed as JSON when looking for a table. */
  readonly maxTextLength: number;
  /** Tells one downstream client's sessions that its tool list changed. */
  readonly toolsChanged: (client: string) => void;
  /** Makes sure the registry has seen the upstream's definition of `name` (lists tools once). */
  readonly learnTool: (name: string) => Promise<void>;
  /**
   * The downstream session the call is made for (its `Server`), so that what the upstream sends
   * about the call (log messages) goes to that session only.
   */
  readonly caller?: object;
}

/** The downstream request's handler argument, from either SDK (`extra` on v1, `ctx` on v2). */
type Extra = ToolCall;

function errorResult(code: S2SPErrorCode, message: string): CallToolResult {
  return toolErrorResult(new S2SPError(code, message));
}

/** Forwards a request's progress notifications to the downstream client, under its own token. */
export function progressRelay(
  extra: Extra,
  readToolCall: GatewayParts['readToolCall'],
):
  | { onprogress: (progress: { progress: number; total?: number; message?: string }) => void }
  | undefined {
  const { meta, notify } = readToolCall(extra);
  const token = meta?.progressToken;
  if (token === undefined || notify === undefined) return undefined;
  return {
    onprogress: (progress) => {
      void notify({
        method: 'notifications/progress',
        params: { ...progress, progressToken: token },
      }).catch(() => {});
    },
  };
}

/**
 * What a request forwarded upstream on behalf of one downstream request carries: its abort
 * signal, its progress relay (the SDK routes progress by token to this request only), the
 * session it is made for and, from a 2026-07-28 client, its round (see `client-round.ts`).
 *
 * @param extra - the downstream request's signal, progress token and notification sender
 * @param caller - the downstream session (its `Server`)
 * @param readToolCall - the servers' reading of a request (`GATEWAY_PARTS`)
 */
export function forwardOptions(
  extra: Extra,
  caller: object | undefined,
  readToolCall: GatewayParts['readToolCall'],
): ForwardOptions {
  const { signal } = readToolCall(extra);
  const round = clientRoundOf(extra as RoundCall);
  return {
    ...(signal && { signal }),
    ...progressRelay(extra, readToolCall),
    ...(caller && { caller }),
    ...(round && { round }),
  };
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
    return await context.callsPerClient.run(context.clientKey(extra), () =>
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

/** The S2SP arguments that ask for a split: sent to a tool without S2SP, they are refused. */
const SPLIT_ARGUMENTS = ['abstract_domains', 'abstract_budget_tokens'] as const;

/** Why a tool is not offered S2SP, in the words of the refusal. */
const BLOCKED_BECAUSE: Record<NonNullable<TableToolInfo['blockedBecause']>, string> = {
  excluded: 'the operator excluded it',
  writes: 'its annotations say it writes',
  'no-declared-table': 'its outputSchema declares no array of objects',
};

/** Reads `abstract_budget_tokens`: absent, or a whole number of tokens within the cap. */
function budgetOf(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= 1 &&
    value <= MAX_ABSTRACT_BUDGET_TOKENS
  )
    return value;
  throw new S2SPError(
    'invalid_request',
    `abstract_budget_tokens must be a whole number from 1 to ${MAX_ABSTRACT_BUDGET_TOKENS}.`,
  );
}

async function callToolNow(
  context: ToolCallContext,
  params: ToolCallParams,
  extra: Extra,
): Promise<CallToolResult> {
  const { name } = params;
  const client = context.clientKey(extra);
  await context.learnTool(name);
  const info = context.tables.info(name, client);
  const args = params.arguments ?? {};
  // A tool the proxy does not offer S2SP for would ignore a split it was asked for and answer in
  // full: the model is told, not handed what it tried to avoid.
  if (info.blocked) {
    const asked = SPLIT_ARGUMENTS.filter((key) => info.names[key] === key && args[key] != null);
    if (asked.length > 0) {
      return errorResult(
        'invalid_request',
        `"${name}" is not offered S2SP by this proxy (${BLOCKED_BECAUSE[info.blockedBecause ?? 'excluded']}), so it cannot apply ${asked.join(' or ')}. ${callToolPlainly}`,
      );
    }
  }
  // The S2SP arguments, under the names this tool lists them (s2sp_mode where the tool has its own
  // mode); everything else, the upstream's own parameters of S2SP names included, goes upstream.
  // A blocked tool (excluded, a write tool, one declaring no table) gets its arguments untouched.
  const own: Record<string, unknown> = { ...args };
  const s2spArgs: Record<string, unknown> = {};
  if (!info.blocked) {
    for (const [key, listed] of Object.entries(info.names)) {
      s2spArgs[key] = own[listed];
      delete own[listed];
    }
  }
  const { abstract_budget_tokens, table, ...tableArgs } = s2spArgs;
  let request: TableRequest = { domains: [], mode: 'async' };
  let budget: number | undefined;
  /** Columns a budget call's filter names: they must be in the abstract it picks. */
  let filtered: string[] = [];
  if (!info.blocked) {
    try {
      budget = budgetOf(abstract_budget_tokens);
      if (budget === undefined) request = context.parts.parseTableRequest(tableArgs);
      else {
        const { filter, ...rest } = tableArgs;
        request = context.parts.parseTableRequest(rest);
        if (request.domains.length > 0) {
          throw new S2SPError(
            'invalid_request',
            `Give either ${info.names.abstract_domains} or ${info.names.abstract_budget_tokens}, not both.`,
          );
        }
        filtered = Object.keys(parseRowFilter(filter) ?? {});
      }
    } catch (error) {
      if (!S2SPError.isInstance(error)) throw error;
      return errorResult(error.code, error.message);
    }
  }
  const resultContext = {
    toolName: name,
    // What the host declares in the call's `_meta` (the encoding its model reads, §7.5; where it
    // reads a sync body, §7.11) applies to the proxy's answer as to any S2SP server's; nothing
    // else of the call is read from here (the proxy's own settings say where it is reached).
    call: { _meta: params._meta },
    knownColumns: info.declaredColumns,
    // Each downstream client (authenticated id, else its address) gets its own share of
    // maxEntriesPerClient: one caller paging large tables cannot use up everyone's room.
    client,
  };
  // A page of an earlier result comes from the store: the upstream is not called again.
  if (request.cursor !== undefined)
    return context.s2sp().resourceResult([], tableArgs, resultContext);
  const domains = request.domains;
  const s2spCall = domains.length > 0 || budget !== undefined;
  const forwarded =
    info.blocked || Object.values(s2spArgs).every((value) => value === undefined) ? args : own;

  // One trace across agent, proxy and upstream: the upstream's tool span is a child of the
  // proxy's (the active span here), not of the caller's. Without OpenTelemetry the caller's
  // `_meta` goes on as it came.
  const trace = traceHeaders(otelIfLoaded());
  const meta = Object.keys(trace).length > 0 ? { ...params._meta, ...trace } : params._meta;
  // An async split stores the rows' texts and reads only the abstract's values: the other values
  // are not kept (a fraction of the memory for a large table), and a large table's text
  // is read as the bytes it came in, never as a string.
  const keep =
    !info.blocked && request.mode === 'async' && domains.length > 0 && budget === undefined;
  let result: CallToolResult;
  try {
    result = (await context.upstream.request(
      {
        method: 'tools/call',
        params: {
          ...params,
          ...(params.arguments !== undefined && { arguments: forwarded }),
          ...(meta && { _meta: meta }),
        },
      },
      {
        ...forwardOptions(extra, context.caller, context.parts.readToolCall),
        ...(keep && { textAsBytes: true }),
      },
    )) as CallToolResult;
  } catch (error) {
    if (S2SPError.isInstance(error)) {
      context.logger.warn('tool call: upstream failed', { tool: name, code: error.code });
      return errorResult(error.code, error.message);
    }
    throw error;
  }

  // A round of a 2026-07-28 upstream's for its client to answer (`input_required`) goes back as
  // it came: the call has no result yet.
  if (isInputRequiredResult(result)) return result;
  // A plain call's result is read only when it can teach the proxy the tool's columns.
  const inspect = !info.blocked && (s2spCall || info.table || (info.learns && !result.isError));
  // What goes back as it came has its text as strings (findTable decodes what it reads as text).
  if (!inspect || result.isError) decodeLargeTexts(result);
  if (!inspect) return result;
  if (table !== undefined && (typeof table !== 'string' || table.length > MAX_TABLE_ARGUMENT)) {
    return errorResult(
      'invalid_request',
      `${info.names.table ?? 'table'} must be a member name or JSON Pointer of at most ${MAX_TABLE_ARGUMENT} characters. ${nameTheTable}`,
    );
  }
  // The receipt counts what the model would have read: the upstream's own text (CSV, indented
  // JSON, prose), read before the parse may hand its bytes to the store.
  const plainTokens =
    s2spCall && !result.isError ? context.parts.plainTextTokens(blockTexts(result)) : undefined;
  // In slices: a large table's parse must not hold every other client's requests meanwhile.
  const found = await runInSlices(
    findTableSteps(result, {
      maxTextLength: context.maxTextLength,
      ...(info.pointer && { pointer: info.pointer }),
      ...(info.format && { format: info.format }),
      ...(typeof table === 'string' && s2spCall && { table }),
      ...(keep && { keep: domains }),
      ...(info.table && { knownTable: true }),
    }),
  );
  const passThrough = !s2spCall || result.isError ? result : undefined;
  // From here on only the rows are needed: emptying the upstream's texts and dropping its result
  // lets its text (tens of megabytes for a large table) be collected while the table is split and
  // stored.
  if (!passThrough) releaseTexts(result, found.kind === 'table' ? found.blocks.kept : []);
  result = undefined as unknown as CallToolResult;

  // The arrays of rows the result had, for this client's description (the model names one).
  if (found.kind === 'table' || found.arrays) {
    if (context.tables.observeArrays(client, name, found.arrays ?? [])) {
      context.logger.info('tool list: result arrays learned', { tool: name });
      context.toolsChanged(client);
    }
  }
  const columns = found.kind === 'table' ? columnsOf(found.rows) : [];
  // A 0-row result teaches no columns: it must not wipe those learned from earlier results.
  if (found.kind === 'table' && found.rows.length > 0) {
    // Learned for this client only: column names may be text another client chose.
    if (context.tables.observe(client, name, found.rows, columns)) {
      context.logger.info('tool list: table columns learned', { tool: name });
      context.toolsChanged(client);
    }
  }
  if (passThrough) return passThrough;
  if (found.kind !== 'table') {
    const listed = found.arrays ? ` ${nameTheTable}` : ` ${callToolPlainly}`;
    return errorResult(
      'invalid_rows',
      `${info.names.abstract_domains} needs a table from "${name}", and this result (${describeBlocks(found.blocks)}) has none the proxy can split: ${found.reason}.${listed}`,
    );
  }
  if (budget !== undefined) {
    const picked = pickColumns(found.rows, columns, budget, filtered, context.parts);
    if (!picked.ok) {
      return errorResult(
        'invalid_request',
        `No abstract fits ${budget} tokens for these ${found.rows.length} rows: it needs about ${picked.needed}. ${raiseAbstractBudget(picked.needed)}`,
      );
    }
    tableArgs.abstract_domains = picked.columns;
  }
  // The rows' own texts, when the upstream sent compact JSON: stored as they are, not re-stringified.
  const answer = await context.s2sp().resourceResult(found.rows, tableArgs, {
    ...resultContext,
    rowJson: () => rowJsonOf(found),
    ...(plainTokens !== undefined && { plainTokens }),
  });
  if (answer.isError) return answer;
  return withOtherParts(context, found, answer, resultContext);
}

/**
 * The rows' own bytes, or texts, when the upstream sent compact JSON, for the store (handed over
 * once: none is kept here).
 */
function rowJsonOf(found: FoundTable): RowJson | undefined {
  const bytes = found.rowBytes?.();
  if (bytes) return { bytes };
  const texts = found.rowTexts?.();
  return texts && { texts };
}
