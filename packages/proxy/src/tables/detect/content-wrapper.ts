/**
 * An MCP tool result written as JSON into a text block (`{"content": [{"type": "text", "text":
 * "..."}]}`, as github-mcp-server answers some calls): not a table of `type, text` but a result
 * whose own blocks hold the answer.
 *
 * @module
 */

import { isPlainObject } from '@s2sp/core/json';
import type { CallToolResult } from '../../mcp-sdk.js';

/** The members an MCP tool result may have; a wrapper has no others. */
const RESULT_MEMBERS = new Set(['content', 'structuredContent', 'isError', '_meta']);

/** A content block: a `type` string, and a `text` string when it is a text block. */
function isBlock(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    typeof value.type === 'string' &&
    (value.type !== 'text' || typeof value.text === 'string')
  );
}

/**
 * The tool result `document` is, when it is one: an object with a non-empty `content` array of
 * content blocks and no member a tool result lacks; `undefined` otherwise.
 */
export function contentWrapper(document: unknown): CallToolResult | undefined {
  if (!isPlainObject(document)) return undefined;
  const { content } = document;
  if (!Array.isArray(content) || content.length === 0 || !content.every(isBlock)) return undefined;
  if (!Object.keys(document).every((key) => RESULT_MEMBERS.has(key))) return undefined;
  return {
    content: content as CallToolResult['content'],
    ...(document.structuredContent !== undefined && {
      structuredContent: document.structuredContent as CallToolResult['structuredContent'],
    }),
    ...(document.isError === true && { isError: true }),
  };
}
