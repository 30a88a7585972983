/**
 * The savings receipt of an S2SP result (PROTOCOL §7.9): what the model does not read, and the
 * tokens that saves, estimated with the one estimator the token budget uses.
 *
 * @module
 */

import { PROTOCOL, type S2SPResult } from '@s2sp/core';
import type { S2SPReceipt } from '@s2sp/core/receipt';
import type { Table } from '@s2sp/core/store';
import type { CallToolResult } from '../mcp-sdk.js';
import { serializePlainResult } from './s2sp-result.js';
import { estimateTokens } from './token-estimate.js';

/**
 * The receipt of `result` for `table`: rows the model does not see (total minus the abstract
 * rows in this result), body columns, and `estimateTokens(plain) − estimateTokens(read)`, where
 * plain is the plain result's text (every row, every column) and read is what the model reads:
 * the text block in async mode; in sync mode the object without `body`, which the agent's S2SP
 * layer keeps from the model.
 */
export function savingsReceipt(
  table: Table,
  result: S2SPResult,
  bodyColumns: number,
  modelText: string,
): S2SPReceipt {
  return {
    rows_withheld: table.rows.length - result.abstract.length,
    columns_withheld: bodyColumns,
    tokens_saved: estimateTokens(serializePlainResult(table)) - estimateTokens(modelText),
  };
}

/** The tool result with `receipt` under `_meta["s2sp/receipt"]`, beside any `_meta` it has. */
export function withReceipt(result: CallToolResult, receipt: S2SPReceipt): CallToolResult {
  return { ...result, _meta: { ...result._meta, [PROTOCOL.receiptMeta]: receipt } };
}

/** The text of a tool result's first text block (what the model reads). */
export function modelTextOf(result: CallToolResult): string {
  const block = result.content.find((item) => item.type === 'text');
  return block?.type === 'text' ? block.text : '';
}
