/**
 * Every import from `@modelcontextprotocol/sdk` lives here, so that moving to the SDK's next major
 * version (split packages) touches one file.
 *
 * @module
 */
export { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
export { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
export type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
export type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
export type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';

import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** What a tool handler receives besides its arguments: cancellation signal, request info, etc. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Loads the stdio transport on demand: it is Node-only, and the main entry must not need Node. */
export async function loadStdioTransport(): Promise<
  typeof import('@modelcontextprotocol/sdk/server/stdio.js').StdioServerTransport
> {
  return (await import('@modelcontextprotocol/sdk/server/stdio.js')).StdioServerTransport;
}

export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
