/**
 * Tool results for the table-detection tests: text blocks holding a value (JSON, pretty-printed,
 * unless it is a string), and a small table.
 *
 * @module
 */

import type { CallToolResult } from '../../../mcp-sdk.js';

/** The options of most calls: a text limit no test result reaches. */
export const opts = { maxTextLength: 1_000_000 };
/** A text block holding `value`: a string as it is, anything else as pretty-printed JSON. */
export const block = (value: unknown) => ({
  type: 'text' as const,
  text: typeof value === 'string' ? value : JSON.stringify(value, null, 2),
});
/** A result of one text block per value. */
export const text = (...values: unknown[]): CallToolResult => ({ content: values.map(block) });
/** A small table whose rows have different columns. */
export const ROWS = [{ id: 1 }, { id: 2, name: 'b' }];
