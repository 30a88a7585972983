import { S2SPError, type S2SPErrorCode } from './errors.js';
import { PROTOCOL } from './protocol.js';

const ERROR_CODE_META = PROTOCOL.errorCodeMeta;

/**
 * An MCP tool error result (`CallToolResult` with `isError: true`), as every S2SP layer returns
 * it: server tools, agent adapters and the proxy. Structurally an MCP result, so core needs no
 * MCP SDK.
 */
export interface ToolErrorResult {
  [key: string]: unknown;
  isError: true;
  content: { type: 'text'; text: string }[];
  _meta: { 's2sp/error-code': S2SPErrorCode };
}

/**
 * A tool error the LLM can act on. S2SP errors carry their own advice; other errors (a tool
 * author's own) keep their message, as the MCP SDK would show it. The stable code goes in
 * `_meta` so that other surfaces (SLOP, adapters) can map it without parsing text.
 *
 * @param error - whatever was thrown
 */
export function toolErrorResult(error: unknown): ToolErrorResult {
  const message = error instanceof Error ? error.message : String(error);
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: { [ERROR_CODE_META]: S2SPError.codeOf(error) },
  };
}
