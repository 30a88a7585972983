/**
 * Every import from the MCP TypeScript SDK lives here. The package runs on SDK v2
 * (`@modelcontextprotocol/server`); the `McpServer` a user brings may be of either major, and is
 * read by its shape (`mcp/mcp-server-like.ts`), never through these imports.
 *
 * @module
 */

export type {
  CallToolResult,
  McpHttpHandler,
  ToolAnnotations,
  Transport,
} from '@modelcontextprotocol/server';
export {
  createMcpHandler,
  InMemoryTransport,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/**
 * Loads the stdio entry on demand (`serveStdio` serves both protocol eras on one connection): it
 * is Node-only, and the main entry must not need Node.
 */
export async function loadStdio(): Promise<typeof import('@modelcontextprotocol/server/stdio')> {
  return import('@modelcontextprotocol/server/stdio');
}

/**
 * Loads SDK v2's `Client` on demand, for SLOP's in-process calls: `@modelcontextprotocol/client`
 * is an optional peer, needed only by `@s2sp/server/slop`.
 */
export async function loadClient(): Promise<typeof import('@modelcontextprotocol/client').Client> {
  return (await import('@modelcontextprotocol/client')).Client;
}
