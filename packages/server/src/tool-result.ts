import { toolErrorResult } from '@s2sp/core';
import type { CallToolResult } from './mcp-sdk.js';

/** A tool result with one text block. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/**
 * A tool error the LLM can act on, with its stable code in `_meta` (see core's
 * `toolErrorResult`), typed as the MCP SDK's `CallToolResult`.
 */
export function errorResult(error: unknown): CallToolResult {
  return toolErrorResult(error);
}
