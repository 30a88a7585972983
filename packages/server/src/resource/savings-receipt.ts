/**
 * The savings receipt of an S2SP result (PROTOCOL §7.9): what the model does not read, and the
 * tokens that saves, estimated with the one estimator the token budget uses.
 *
 * @module
 */

import { PROTOCOL, type S2SPResult } from '@s2sp/core';
import type { S2SPReceipt } from '@s2sp/core/receipt';
import type { CallToolResult } from '../mcp-sdk.js';
import { serializePlainResult } from './s2sp-result.js';
import type { SerializedTable, Table } from './table.js';
import { estimateTokens } from './token-estimate.js';

/**
 * Characters of plain JSON up to which the receipt estimates the plain result exactly; a larger
 * table is estimated from its first rows of about this size, scaled by its length, so that the
 * receipt costs a bounded scan (the store already holds every row's JSON) and not a second pass
 * over a table of any size.
 */
export const RECEIPT_EXACT_CHARS = 1 << 20;

// `{"_row_id":` minus its `{`, which the plain row keeps.
const ROW_ID_MEMBER = '"_row_id":'.length;

/**
 * The length of row `i`'s plain JSON, from the length of its stored JSON (`serializeRow`'s
 * layout).
 */
function plainRowLength(stored: number, i: number): number {
  const id = String(i).length;
  // `{"_row_id":7}` was `{}`; otherwise `{"_row_id":7,` stands for `{`.
  return stored === ROW_ID_MEMBER + id + 2 ? 2 : stored - ROW_ID_MEMBER - id - 1;
}

/**
 * `estimateTokens` of the plain result (every row, every column): exact up to
 * {@link RECEIPT_EXACT_CHARS} of JSON, else extrapolated from the first rows.
 *
 * @param stored - the rows' stored JSON and its lengths ({@link serializeTable}), when at hand:
 *   they give the plain length without serialising the table again, and only the rows of the
 *   exact part are read
 */
export function plainResultTokens(
  table: Table,
  stored?: Pick<SerializedTable, 'rows' | 'rowLengths'>,
): number {
  if (!stored) return estimateTokens(serializePlainResult(table));
  const count = stored.rowLengths.length;
  let total = Math.max(2, count + 1);
  for (let i = 0; i < count; i++) total += plainRowLength(stored.rowLengths[i] as number, i);
  let rows = 0;
  for (let chars = 0; rows < count && chars < RECEIPT_EXACT_CHARS; rows++)
    chars += plainRowLength(stored.rowLengths[rows] as number, rows) + 1;
  // The plain JSON of the first rows, from their stored JSON rather than the row objects: a
  // caller that stores rows from their texts (the proxy) may hold them without their other
  // values. For rows serialised here it is the same text.
  const plain: string[] = [];
  for (let i = 0; i < rows; i++) {
    const row = stored.rows[i] as string;
    const length = plainRowLength(row.length, i);
    plain.push(length === 2 ? '{}' : `{${row.slice(row.length - length + 1)}`);
  }
  const sample = `[${plain.join(',')}]`;
  if (rows === count) return estimateTokens(sample);
  return Math.round((estimateTokens(sample) * total) / sample.length);
}

/**
 * `estimateTokens` of the texts a model reads of a plain tool result (its text blocks, as strings
 * or as their UTF-8): exact up to {@link RECEIPT_EXACT_CHARS} of each text, else estimated from its
 * first part and scaled by its length. A caller that relays another server's answer (the proxy)
 * counts the plain result this way, as the model would have read it (CSV, indented JSON, prose),
 * not as the rows' compact JSON.
 */
export function plainTextTokens(texts: Iterable<string | Uint8Array>): number {
  let tokens = 0;
  for (const text of texts) {
    const size = typeof text === 'string' ? text.length : text.byteLength;
    if (size <= RECEIPT_EXACT_CHARS) {
      tokens += estimateTokens(typeof text === 'string' ? text : decoder.decode(text));
      continue;
    }
    const sample =
      typeof text === 'string'
        ? text.slice(0, RECEIPT_EXACT_CHARS)
        : decoder.decode(text.subarray(0, RECEIPT_EXACT_CHARS));
    tokens += Math.round((estimateTokens(sample) * size) / RECEIPT_EXACT_CHARS);
  }
  return tokens;
}

const decoder = new TextDecoder();

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
