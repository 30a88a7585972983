/**
 * The savings receipt of an S2SP result (PROTOCOL §7.9): what the model does not read, and the
 * tokens that saves, estimated with the one estimator the token budget uses.
 *
 * @module
 */

import { PROTOCOL, type S2SPResult } from '@s2sp/core';
import type { S2SPReceipt } from '@s2sp/core/receipt';
import type { CallToolResult } from '../mcp-sdk.js';
import { plainResultTokens } from './plain-tokens.js';
import type { Table } from './table.js';
import { estimateTokens } from './token-estimate.js';

/**
 * The receipt of `result` for `table`: rows the model does not see (total minus the abstract
 * rows in this result), body columns, and the plain result's estimated tokens
 * ({@link plainResultTokens}) minus `estimateTokens(modelText)`, what the model reads: the text
 * block in async mode; in sync mode the object without `body`, which the agent's S2SP layer keeps
 * from the model.
 *
 * @param plainTokens - {@link plainResultTokens} of the table, when already counted (async mode
 *   counts it from the stored rows, which it need not keep until the result is built)
 */
export function savingsReceipt(
  table: Table,
  result: S2SPResult,
  bodyColumns: number,
  modelText: string,
  plainTokens: number = plainResultTokens(table),
): S2SPReceipt {
  return {
    rows_withheld: table.rows.length - result.abstract.length,
    columns_withheld: bodyColumns,
    tokens_saved: plainTokens - estimateTokens(modelText),
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
