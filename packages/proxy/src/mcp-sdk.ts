/**
 * Every import from the MCP TypeScript SDK lives here. The proxy's 2025-era parts (its upstream
 * client and its downstream sessions) are on SDK v1 (`@modelcontextprotocol/sdk`); its 2026-07-28
 * downstream leg is on SDK v2 (`@modelcontextprotocol/server`), whose per-request entry serves
 * that revision.
 *
 * @module
 */

// The upstream leg's negotiation (2026-07-28 or 2025, found by probing): SDK v2's client.
export {
  CLIENT_CAPABILITIES_META_KEY,
  Client as ModernClient,
  isInputRequiredResult,
  LOG_LEVEL_META_KEY,
  type PriorDiscovery,
  ProtocolError as ModernProtocolError,
  SdkError as ModernSdkError,
  SdkErrorCode as ModernSdkErrorCode,
  SERVER_INFO_META_KEY,
  StreamableHTTPClientTransport as ModernHttpClientTransport,
} from '@modelcontextprotocol/client';
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
export type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
export { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
export type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
export {
  CallToolRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  type Implementation,
  type JSONRPCMessage,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type ListToolsResult,
  type LoggingLevel,
  LoggingLevelSchema,
  McpError,
  type Notification,
  ReadResourceRequestSchema,
  type Request,
  ResultSchema,
  RootsListChangedNotificationSchema,
  type ServerCapabilities,
  type ServerNotification,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
export { Server as ModernServer, specTypeSchemas } from '@modelcontextprotocol/server';
