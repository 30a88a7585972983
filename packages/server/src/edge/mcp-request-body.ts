import { S2SPError } from '@s2sp/core';
import type { Context } from 'hono';
import { readRequestBody } from './request-body.js';

/** Limits of {@link readMcpRequestBody}. */
export interface McpRequestBodyLimits {
  /** Largest request body, in bytes. */
  readonly maxRequestBytes: number;
  /** Most JSON-RPC messages in one batch. */
  readonly maxBatchSize: number;
  /** Longest the body may take to arrive, in ms. */
  readonly bodyTimeoutMs: number;
}

/** A JSON-RPC request body read within the limits, or the JSON-RPC error response to send. */
export type McpRequestBody =
  | { readonly ok: true; readonly body: unknown }
  | { readonly ok: false; readonly response: Response };

function jsonRpcError(status: 400 | 408 | 413, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: {
      'content-type': 'application/json',
      // After a body that timed out the rest may still be trickling in: the connection cannot
      // carry another request.
      ...(status === 408 ? { connection: 'close' } : {}),
    },
  });
}

/**
 * The JSON-RPC error for a batch over the limit, or `undefined`. The whole batch is refused
 * before anything runs: running a prefix would leave the client unsure which calls happened.
 *
 * @param body - the parsed request body
 * @param maxBatchSize - the limit
 */
export function batchTooLarge(body: unknown, maxBatchSize: number): string | undefined {
  if (!Array.isArray(body) || body.length <= maxBatchSize) return undefined;
  return `Invalid Request: a batch of ${body.length} JSON-RPC messages is over this server's limit of ${maxBatchSize}. Send at most ${maxBatchSize} per request, or one at a time.`;
}

/**
 * Reads and parses an MCP (JSON-RPC) POST body at the edge, for a Streamable HTTP transport to
 * take as `parsedBody`: within the size cap and the read timeout (the MCP SDK would wait as long
 * as the client takes), and with a batch counted before any of it runs. Over the size limit or
 * not JSON: the same JSON-RPC answers the SDK gives; too slow: 408.
 *
 * @param c - the Hono context of the request
 * @param limits - size, batch and time limits
 */
export async function readMcpRequestBody(
  c: Context,
  limits: McpRequestBodyLimits,
): Promise<McpRequestBody> {
  let body: unknown;
  try {
    const bytes = await readRequestBody(
      c.req.raw,
      c.env,
      limits.maxRequestBytes,
      limits.bodyTimeoutMs,
    );
    if (!bytes)
      return {
        ok: false,
        response: jsonRpcError(
          413,
          -32000,
          `Payload Too Large: Request body must not exceed ${limits.maxRequestBytes} bytes`,
        ),
      };
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    if (S2SPError.isInstance(error) && error.code === 'request_timeout')
      return { ok: false, response: jsonRpcError(408, -32000, error.message) };
    return { ok: false, response: jsonRpcError(400, -32700, 'Parse error: Invalid JSON') };
  }
  const tooLarge = batchTooLarge(body, limits.maxBatchSize);
  if (tooLarge) return { ok: false, response: jsonRpcError(400, -32600, tooLarge) };
  return { ok: true, body };
}
