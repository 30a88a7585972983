import type { Hono } from 'hono';
import { type McpServer, WebStandardStreamableHTTPServerTransport } from './mcp-sdk.js';

/** Options for {@link mountStatelessMcp}. */
export interface StatelessMcpOptions {
  /** Path of the endpoint, such as `/mcp`. */
  readonly path: string;
  /** Makes a fully registered `McpServer` for one request. */
  readonly createMcpServer: () => McpServer;
  /** Largest request body, in bytes. */
  readonly maxRequestBytes: number;
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
    const mcp = options.createMcpServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: options.maxRequestBytes,
    });
    try {
      await mcp.connect(transport);
      // With JSON responses the body is complete when handleRequest resolves, so closing here
      // cannot cut a stream short.
      return await transport.handleRequest(c.req.raw);
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
