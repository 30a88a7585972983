import type { Hono } from 'hono';
import { type McpServer, WebStandardStreamableHTTPServerTransport } from '../mcp-sdk.js';
import type { S2SPEdge } from './s2sp-edge.js';

/** Options for {@link mountStatelessMcp}. */
export interface StatelessMcpOptions {
  /** Path of the endpoint, such as `/mcp`. */
  readonly path: string;
  /** Makes a fully registered `McpServer` for one request. */
  readonly createMcpServer: () => McpServer;
  /** The edge in front: body caps, read timeout, batch limit, the caller and the SDK's Host check. */
  readonly edge: S2SPEdge;
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
    // The edge reads and parses the body, then hands it to the transport: for the read timeout
    // (the SDK waits as long as the client takes) and to count a batch before any of it runs.
    const read = await options.edge.readMcpBody(c);
    if (!read.ok) return read.response;
    const parsedBody = read.body;
    const protection = options.edge.transportProtection(c.req.raw);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: options.edge.options.maxMcpRequestBytes,
      enableDnsRebindingProtection: true,
      ...protection,
    });
    const authInfo = options.edge.authInfo(c);
    const mcp = options.createMcpServer();
    try {
      await mcp.connect(transport);
      // With JSON responses the body is complete when handleRequest resolves, so closing here
      // cannot cut a stream short.
      return await transport.handleRequest(options.edge.clientRequest(c), {
        parsedBody,
        ...(authInfo && { authInfo }),
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
