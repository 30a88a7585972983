import { S2SPError } from '@s2sp/core';
import type { Context, Hono } from 'hono';
import { CLIENT_ADDRESS_HEADER, sealClientAddress } from '../client-quota.js';
import { type McpServer, WebStandardStreamableHTTPServerTransport } from '../mcp-sdk.js';
import type { BearerAuthInfo } from './bearer-auth.js';
import { readRequestBody } from './request-body.js';

/** Options for {@link mountStatelessMcp}. */
export interface StatelessMcpOptions {
  /** Path of the endpoint, such as `/mcp`. */
  readonly path: string;
  /** Makes a fully registered `McpServer` for one request. */
  readonly createMcpServer: () => McpServer;
  /** Largest request body, in bytes. */
  readonly maxRequestBytes: number;
  /** Most JSON-RPC messages in one batch. */
  readonly maxBatchSize: number;
  /** Longest a request body may take to arrive, in ms. */
  readonly bodyTimeoutMs: number;
  /**
   * The MCP SDK's DNS-rebinding protection for this request: the exact `Host` and `Origin`
   * values it accepts (`enableDnsRebindingProtection` on the transport), or `undefined` for none.
   */
  readonly rebindingProtection?: (request: Request) => {
    readonly allowedHosts: string[];
    readonly allowedOrigins: string[];
  };
}

function jsonRpcError(
  c: Context,
  status: 400 | 408 | 413,
  code: number,
  message: string,
): Response {
  return c.json({ jsonrpc: '2.0', error: { code, message }, id: null }, status, {
    ...(status === 408 ? { connection: 'close' } : {}),
  });
}

/**
 * The request as the transport sees it: the caller's socket address in
 * {@link CLIENT_ADDRESS_HEADER} (for per-client quotas), replacing whatever the client sent. The
 * body was read already and travels as `parsedBody`.
 */
function withClientAddress(request: Request, env: unknown): Request {
  const headers = new Headers(request.headers);
  headers.delete(CLIENT_ADDRESS_HEADER);
  const socket = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming?.socket;
  if (socket?.remoteAddress)
    headers.set(CLIENT_ADDRESS_HEADER, sealClientAddress(socket.remoteAddress));
  return new Request(request.url, { method: request.method, headers });
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
 * Serves MCP over stateless Streamable HTTP on a Hono app, the convenience server's transport:
 * every POST gets a fresh `McpServer` and a JSON response, so any number of replicas can sit
 * behind a load balancer when they share a store. There are no sessions and no server-initiated
 * streams (GET and DELETE answer 405). For sessions, register tools on your own `McpServer` with
 * `createS2SP` and use the SDK's transports directly.
 */
export function mountStatelessMcp(app: Hono, options: StatelessMcpOptions): void {
  app.post(options.path, async (c) => {
    // The body is read and parsed here, then handed to the transport: for the read timeout (the
    // SDK waits as long as the client takes) and to count a batch before any of it runs. Over
    // the size limit or not JSON: the same answers the SDK gives.
    let parsedBody: unknown;
    try {
      const bytes = await readRequestBody(
        c.req.raw,
        c.env,
        options.maxRequestBytes,
        options.bodyTimeoutMs,
      );
      if (!bytes)
        return jsonRpcError(
          c,
          413,
          -32000,
          `Payload Too Large: Request body must not exceed ${options.maxRequestBytes} bytes`,
        );
      parsedBody = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (error) {
      if (S2SPError.isInstance(error) && error.code === 'request_timeout')
        return jsonRpcError(c, 408, -32000, error.message);
      return jsonRpcError(c, 400, -32700, 'Parse error: Invalid JSON');
    }
    const tooLarge = batchTooLarge(parsedBody, options.maxBatchSize);
    if (tooLarge) return jsonRpcError(c, 400, -32600, tooLarge);
    const protection = options.rebindingProtection?.(c.req.raw);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: options.maxRequestBytes,
      ...(protection && { enableDnsRebindingProtection: true, ...protection }),
    });
    const authInfo = c.get('s2spAuth' as never) as BearerAuthInfo | undefined;
    const mcp = options.createMcpServer();
    try {
      await mcp.connect(transport);
      // With JSON responses the body is complete when handleRequest resolves, so closing here
      // cannot cut a stream short.
      return await transport.handleRequest(withClientAddress(c.req.raw, c.env), {
        parsedBody,
        ...(authInfo && { authInfo: { ...authInfo, scopes: [...authInfo.scopes] } }),
      });
    } finally {
      await transport.close();
      await mcp.close();
    }
  });
  app.on(['GET', 'DELETE'], options.path, (c) =>
    c.json(
      {
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: 'Method not allowed: this MCP server is stateless; use POST.',
        },
        id: null,
      },
      405,
      { allow: 'POST' },
    ),
  );
}
