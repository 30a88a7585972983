import type { Hono } from 'hono';
import { type McpServer, WebStandardStreamableHTTPServerTransport } from '../mcp-sdk.js';
import { createModernMcp } from './modern-mcp.js';
import type { S2SPEdge } from './s2sp-edge.js';
import { whenStreamEnds } from './stream-end.js';

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
 * Serves MCP over stateless Streamable HTTP on a Hono app, the convenience server's transport,
 * to clients of both protocol eras on the one endpoint: a 2026-07-28 request (its `_meta`
 * envelope, no `initialize`) through SDK v2's `createMcpHandler`, a 2025-era one as before. Every
 * POST gets a fresh `McpServer`, so any number of replicas can sit behind a load balancer when
 * they share a store. There are no sessions and no server-initiated streams (GET and DELETE answer
 * 405). For sessions, register tools on your own `McpServer` with `createS2SP` and use the SDK's
 * transports directly.
 */
export function mountStatelessMcp(app: Hono, options: StatelessMcpOptions): void {
  const modern = createModernMcp(options.edge, () => options.createMcpServer());
  app.post(options.path, async (c) => {
    // The edge reads and parses the body, then hands it to the transport: for the read timeout
    // (the SDK waits as long as the client takes) and to count a batch before any of it runs.
    const read = await options.edge.readMcpBody(c);
    if (!read.ok) return read.response;
    const parsedBody = read.body;
    const answered = await modern.answer(c, parsedBody);
    if (answered) return answered;
    const authInfo = options.edge.authInfo(c);
    const protection = options.edge.transportProtection(c.req.raw);
    // A call that asked for progress (`_meta.progressToken`) is answered as an event stream, so
    // its progress notifications reach the client before the result; every other one as JSON.
    const streamed = asksForProgress(parsedBody);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !streamed,
      maxRequestBodySize: options.edge.options.maxMcpRequestBytes,
      enableDnsRebindingProtection: true,
      ...protection,
    });
    const mcp = options.createMcpServer();
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await transport.close();
      await mcp.close();
    };
    let response: Response | undefined;
    try {
      await mcp.connect(transport);
      response = await transport.handleRequest(options.edge.clientRequest(c), {
        parsedBody,
        ...(authInfo && { authInfo }),
      });
    } finally {
      // With JSON responses the body is complete when handleRequest resolves, so closing here
      // cannot cut a stream short; an event stream closes them when it ends or is cancelled.
      if (!streamed || !response?.body) await close();
    }
    if (!streamed || !response.body) return response;
    return whenStreamEnds(response, close);
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

/** Whether a JSON-RPC message (or a batch) is a request with `params._meta.progressToken`. */
function asksForProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    const meta = (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params
      ?._meta;
    return meta?.progressToken !== undefined;
  });
}
