import { S2SPError } from '@s2sp/core';
import type { CallToolResult } from './mcp-sdk.js';

/** A tool result with one text block. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/**
 * A tool error the LLM can act on. S2SP errors carry their own advice; other errors thrown by a
 * tool author's handler keep their message, as the MCP SDK would show it.
 */
export function errorResult(error: unknown): CallToolResult {
  const message =
    S2SPError.isInstance(error) || error instanceof Error ? error.message : String(error);
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/** The stable code of an error, for logs. */
export function errorCode(error: unknown): string {
  return S2SPError.isInstance(error) ? error.code : 'handler_error';
}
