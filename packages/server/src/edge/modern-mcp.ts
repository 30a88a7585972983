import type { Context } from 'hono';
import { createMcpHandler, isLegacyRequest, type McpHttpHandler } from '../mcp-sdk.js';
import type { S2SPEdge } from './s2sp-edge.js';

/** The MCP 2026-07-28 leg of an MCP endpoint behind the edge (see {@link createModernMcp}). */
export interface ModernMcp {
  /**
   * Answers the request when it is a 2026-07-28 one, by the SDK's own classification (so that the
   * routing never disagrees with its entry); `undefined` for a 2025-era request, which the
   * endpoint serves its own way.
   *
   * @param c - the request, its body already read by `edge.readMcpBody`
   * @param parsedBody - that body
   */
  answer(c: Context, parsedBody: unknown): Promise<Response | undefined>;
  /** Publishes list changes and resource updates to the open `subscriptions/listen` streams. */
  readonly notify: McpHttpHandler['notify'];
  /** Ends the in-flight 2026-07-28 exchanges and their listen streams. */
  close(): Promise<void>;
}

/**
 * The 2026-07-28 leg of an MCP endpoint: SDK v2's `createMcpHandler` (per request by design, a
 * fresh server from `factory` each time) behind the edge — the caller's sealed address and
 * `authInfo` handed on as for a 2025 request, the edge's body cap.
 *
 * @param edge - the edge in front (body already read, Host and Origin checked, caller known)
 * @param factory - a fully registered server for one request
 */
export function createModernMcp(
  edge: S2SPEdge,
  factory: Parameters<typeof createMcpHandler>[0],
): ModernMcp {
  const handler = createMcpHandler(factory, {
    legacy: 'reject',
    maxRequestBodySize: edge.options.maxMcpRequestBytes,
  });
  return {
    async answer(c, parsedBody) {
      if (await isLegacyRequest(c.req.raw, parsedBody)) return undefined;
      const authInfo = edge.authInfo(c);
      return handler.fetch(edge.clientRequest(c), { parsedBody, ...(authInfo && { authInfo }) });
    },
    notify: handler.notify,
    close: () => handler.close(),
  };
}
