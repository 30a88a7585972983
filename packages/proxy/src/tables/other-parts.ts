/**
 * The parts of an upstream's result that are not the table, given to the model after the
 * abstract: what the upstream said about its answer, small text blocks as they were, other arrays
 * (inline when small, else stored beside the table), and a note of what was left out. The savings
 * receipt is charged for them.
 *
 * @module
 */
import { PROTOCOL, type Row } from '@s2sp/core';
import { readS2SPReceipt } from '@s2sp/core/receipt';
import { callToolPlainly } from '../advice.js';
import type { CallToolResult } from '../mcp-sdk.js';
import type { FoundTable } from './detect/find-table.js';
import { describeBlocks, MAX_KEPT_TEXT } from './detect/other-blocks.js';
import { upstreamNoteText } from './detect/upstream-note.js';
import type { GatewayParts, S2SPCall, TableResultContext } from './s2sp-call.js';

/** What {@link withOtherParts} needs of a tool call's context (`ToolCallContext` has it). */
export interface OtherPartsContext {
  readonly s2sp: () => S2SPCall;
  readonly parts: Pick<GatewayParts, 'plainTextTokens'>;
}

/** The union of row keys, in first-seen order. */
export function columnsOf(rows: readonly Row[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

/** Token budget of the abstract of another array stored beside the table. */
const OTHER_ARRAY_TOKENS = 1_000;

/** Rows of another array up to which it is returned as it was, not stored. */
const MAX_KEPT_ARRAY_ROWS = 200;

/**
 * The parts of the upstream's result that are not the table, after the abstract: small text
 * blocks as they were, other arrays (as they were when small, else stored beside the table with
 * their own resource_url), and a note of what was left out.
 */
export async function withOtherParts(
  context: OtherPartsContext,
  found: FoundTable,
  answer: CallToolResult,
  resultContext: TableResultContext,
): Promise<CallToolResult> {
  // What the upstream said about its answer comes first: a partial answer must not read as whole.
  const extra: CallToolResult['content'] = [
    ...(found.note
      ? [{ type: 'text' as const, text: upstreamNoteText(found.note, found.rows.length) }]
      : []),
    ...found.blocks.kept,
  ];
  for (const other of found.others) {
    const label = `${JSON.stringify(other.pointer)} (${other.rows.length.toLocaleString('en-US')} rows)`;
    const json = other.rows.length <= MAX_KEPT_ARRAY_ROWS ? JSON.stringify(other.rows) : undefined;
    if (json !== undefined && json.length <= MAX_KEPT_TEXT) {
      extra.push({ type: 'text', text: `Also in the upstream's result, ${label}: ${json}` });
      continue;
    }
    const [first] = columnsOf(other.rows);
    const stored = await context.s2sp().resourceResult(
      other.rows,
      { abstract_domains: first ?? '' },
      {
        ...resultContext,
        // Beside the table, the other array's abstract gets a small share of the budget.
        tokenBudget: OTHER_ARRAY_TOKENS,
      },
    );
    const [block] = stored.content;
    extra.push({
      type: 'text',
      text: `Also in the upstream's result, ${label}, stored beside the table${stored.isError ? ' failed' : ''}: ${block?.type === 'text' ? block.text : ''}`,
    });
  }
  const { repeats, dropped } = found.blocks;
  if (repeats > 0 || dropped.length > 0) {
    const parts = [
      ...(repeats > 0 ? [`${repeats} block${repeats === 1 ? '' : 's'} repeating the table`] : []),
      ...(dropped.length > 0 ? [describeBlocks(dropped)] : []),
    ];
    extra.push({
      type: 'text',
      text: `The proxy left out ${parts.join(' and ')} of the upstream's result. ${callToolPlainly}`,
    });
  }
  if (extra.length === 0) return answer;
  return withExtraRead(
    { ...answer, content: [...answer.content, ...extra] },
    extra,
    context.parts.plainTextTokens,
  );
}

/** The receipt of `answer` less the tokens of `extra`, blocks the model reads too. */
function withExtraRead(
  answer: CallToolResult,
  extra: CallToolResult['content'],
  plainTextTokens: GatewayParts['plainTextTokens'],
): CallToolResult {
  const receipt = readS2SPReceipt(answer);
  if (!receipt) return answer;
  const read = plainTextTokens(
    extra.flatMap((block) => (block.type === 'text' ? [block.text] : [])),
  );
  return {
    ...answer,
    _meta: {
      ...answer._meta,
      [PROTOCOL.receiptMeta]: { ...receipt, tokens_saved: receipt.tokens_saved - read },
    },
  };
}
