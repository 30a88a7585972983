/**
 * `@s2sp/server`: S2SP resource and consumer tools on the official MCP TypeScript SDK, with the
 * Hono data plane, stdio and Streamable HTTP. The data plane alone is at `@s2sp/server/http`.
 *
 * This file is the package's public API: adding an export here is an API change.
 *
 * @module
 */

export {
  A2S_VERSION,
  type A2SCapability,
  A2SCapabilitySchema,
  type A2SStep,
  A2SStepSchema,
  a2sVariable,
  canonicalJson,
  capabilityChecksum,
  dataPlaneStep,
  mcpToolStep,
  mountA2S,
  sealCapability,
  toYaml,
  verifyCapability,
} from './a2s.js';
export type {
  ConsumerFetchOptions,
  ConsumerToolConfig,
  ConsumerToolHandler,
  ConsumerToolOutput,
} from './consumer-tool.js';
export {
  ConfigError,
  type Env,
  envFlag,
  envHttpUrl,
  envList,
  envNumber,
  envString,
  loadServerEnv,
  type ServerEnv,
} from './env.js';
export { createDataPlaneApp, type DataPlaneOptions, mountDataPlane } from './http/data-plane.js';
export { s2spErrorToResponse } from './http/error-response.js';
export {
  type ConsoleLoggerOptions,
  createConsoleLogger,
  isLogLevel,
  type LogFields,
  type Logger,
  type LogLevel,
  silentLogger,
} from './logger.js';
export type { CallToolResult, McpServer, ToolExtra } from './mcp-sdk.js';
export type { ResourceToolConfig, ResourceToolHandler } from './resource-tool.js';
export {
  createS2SPServer,
  type ListeningServer,
  type ListenOptions,
  type S2SPServer,
  type S2SPServerOptions,
} from './server.js';
export { mountSlop, type SlopOptions, type SlopTool, type SlopToolSource } from './slop.js';
