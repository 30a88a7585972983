/**
 * What a failed upstream request becomes downstream.
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import { retryShortly } from '@s2sp/core/advice';
import { retryOrAskForLess } from '../advice.js';
import { ErrorCode, McpError } from '../mcp-sdk.js';

/**
 * Errors the upstream itself sent (JSON-RPC error responses) pass through unchanged; failures of
 * the connection become S2SP errors that say what happened and what to do.
 */
export function translateError(
  error: unknown,
  label: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  redact: (text: string) => string = (text) => text,
): unknown {
  if (signal?.aborted) return error;
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed) {
      return new S2SPError(
        'unavailable',
        `The upstream MCP server ${label} closed the connection; the proxy restarts it. ${retryShortly}`,
        { cause: error },
      );
    }
    if (error.code === ErrorCode.RequestTimeout && error.data && typeof error.data === 'object') {
      return new S2SPError(
        'timeout',
        `The upstream MCP server ${label} did not answer within ${Math.round(timeoutMs / 1000)} seconds. ${retryOrAskForLess}`,
        { cause: error },
      );
    }
    // McpError prefixes "MCP error <code>: " to its message; rethrow the upstream's own words so
    // the downstream client sees the same message a direct connection would.
    const prefix = `MCP error ${error.code}: `;
    const message = error.message.startsWith(prefix)
      ? error.message.slice(prefix.length)
      : error.message;
    // Not an McpError: its constructor would add the prefix again.
    return Object.assign(new Error(redact(message)), { code: error.code, data: error.data });
  }
  return new S2SPError(
    'upstream_error',
    `The upstream MCP server ${label} could not be reached (it said: «${redact(error instanceof Error ? error.message : String(error))}»). ${retryShortly}`,
    { cause: error },
  );
}
