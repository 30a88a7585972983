import { S2SPError, type S2SPErrorCode } from '@s2sp/core';
import type { CallToolResult } from './mcp-sdk.js';

/** The `_meta` key under which a tool error carries its stable S2SP error code. */
export const ERROR_CODE_META = 's2sp/error-code';

/** A tool result with one text block. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** The stable code of an error: its S2SP code, or `tool_error` for a handler's own error. */
export function errorCode(error: unknown): S2SPErrorCode {
  return S2SPError.isInstance(error) ? error.code : 'tool_error';
}

/**
 * A tool error the LLM can act on. S2SP errors carry their own advice; other errors thrown by a
 * tool author's handler keep their message, as the MCP SDK would show it. The stable code goes in
 * `_meta` so that non-MCP surfaces such as SLOP can answer with the right HTTP status.
 */
export function errorResult(error: unknown): CallToolResult {
  const message =
    S2SPError.isInstance(error) || error instanceof Error ? error.message : String(error);
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: { [ERROR_CODE_META]: errorCode(error) },
  };
}
