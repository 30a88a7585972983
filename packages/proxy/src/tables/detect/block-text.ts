/**
 * The text of a content block, which the upstream's answer may have kept as bytes
 * ({@link LargeText}).
 *
 * @module
 */

import type { CallToolResult } from '../../mcp-sdk.js';
import { LargeText } from '../../upstream/large-strings.js';

/** A content block of a tool result. */
export type Block = CallToolResult['content'][number];

/**
 * A text block's text. One kept as bytes ({@link LargeText}) is decoded here, once, and stays
 * decoded in its block: only the table's own block is read from its bytes. Decoded, its bytes are
 * read no more (a table is split from them only while they are not decoded), so they are
 * released at once.
 */
export function textOf(block: Block | undefined): string | undefined {
  if (block?.type !== 'text') return undefined;
  const text: unknown = block.text;
  if (text instanceof LargeText) {
    block.text = text.decode();
    text.release();
  }
  return block.text;
}

/** The large text a text block kept as bytes, if it did. */
export function largeTextOf(block: Block): LargeText | undefined {
  const text: unknown = block.type === 'text' ? block.text : undefined;
  return text instanceof LargeText ? text : undefined;
}

/**
 * The texts of a result's text blocks, as the model reads them: strings, or the UTF-8 a large one
 * is kept as (not decoded, not handed over).
 */
export function blockTexts(result: CallToolResult): (string | Uint8Array)[] {
  return result.content.flatMap((block) => {
    if (block.type !== 'text') return [];
    const large = largeTextOf(block);
    return [large ? large.bytes : block.text];
  });
}

/**
 * Lets go of the texts of a result whose table has been read: every text block's text becomes
 * empty but those of `kept` (the blocks returned to the model beside the abstract). Its rows are
 * parsed, its row JSON handed over (or sliced from texts of its own), so nothing reads the texts
 * again; emptied in place, they can be collected while the table is split and stored even though
 * the result object itself is still reachable from the upstream request that answered it (a 20 MB
 * CSV decoded as a string stayed alive through the store's work).
 *
 * @param result - the upstream's result, not returned as it is
 * @param kept - blocks whose text is still needed
 */
export function releaseTexts(result: CallToolResult, kept: readonly Block[]): void {
  const keep = new Set(kept);
  for (const block of result.content) {
    if (block.type === 'text' && !keep.has(block)) block.text = '';
  }
}
