/**
 * The errors of SDK v2's client (a 2026-07-28 upstream session) as SDK v1's `McpError`, which the
 * rest of the upstream leg reads (`translateError`, the result cap, the start failure): one error
 * model whichever SDK speaks to the upstream.
 *
 * @module
 */
import {
  ErrorCode,
  McpError,
  ModernProtocolError,
  ModernSdkError,
  ModernSdkErrorCode,
} from '../mcp-sdk.js';

/**
 * An SDK v2 error as SDK v1's `McpError`: the upstream's own JSON-RPC errors keep their code,
 * message and data; a timeout and a closed connection keep their meaning; anything else is
 * returned as it is.
 *
 * @param error - what SDK v2's client threw
 */
export function asMcpError(error: unknown): unknown {
  if (error instanceof ModernProtocolError)
    return new McpError(error.code, stripPrefix(error.message, error.code), error.data);
  if (error instanceof ModernSdkError) {
    if (error.code === ModernSdkErrorCode.RequestTimeout)
      return new McpError(ErrorCode.RequestTimeout, error.message, error.data ?? { timeout: true });
    if (error.code === ModernSdkErrorCode.ConnectionClosed)
      return new McpError(ErrorCode.ConnectionClosed, error.message);
  }
  return error;
}

// `McpError` puts "MCP error <code>: " in front of a message: not twice.
function stripPrefix(message: string, code: number): string {
  const prefix = `MCP error ${code}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}
