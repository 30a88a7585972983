/**
 * `@s2sp/server`: S2SP for MCP servers on the official MCP TypeScript SDK. `createS2SP` adds S2SP
 * resource and consumer tools to your own `McpServer` and gives you the data plane to mount in
 * your own app; `createS2SPServer` is a ready-made server on top of it. Optional parts live in
 * subpaths: `@s2sp/server/http` (the data plane alone), `@s2sp/server/node` (Express and
 * `node:http`), `@s2sp/server/slop`, `@s2sp/server/a2s`, `@s2sp/server/env` and
 * `@s2sp/server/gateway` (for gateways such as `@s2sp/proxy`).
 *
 * This file is the package's public API: adding an export here is an API change.
 *
 * @module
 */

export type { LogFields, Logger } from '@s2sp/core';
export type { ConsumerCallInfo, ConsumerFetchOptions } from './consumer/consumer-options.js';
export type {
  ConsumerToolConfig,
  ConsumerToolHandler,
  ConsumerToolOutput,
} from './consumer/consumer-tool.js';
export { clientKey } from './limits/client-quota.js';
export {
  type ConcurrencyLimit,
  type ConcurrencyLimitOptions,
  createClientConcurrencyLimit,
  createConcurrencyLimit,
} from './limits/concurrency-limit.js';
export {
  type ConsoleLoggerOptions,
  createConsoleLogger,
  type LogLevel,
  silentLogger,
} from './logger.js';
export { s2spCapability } from './mcp/capability.js';
export { type ToolProgress, toolProgress } from './mcp/mcp-progress.js';
export type {
  McpServerLike,
  RegisteredToolOf,
  ToolContextOf,
} from './mcp/mcp-server-like.js';
export { type ListNamesOptions, listNames } from './resource/abstract-domains.js';
export {
  type ResourceToolConfig,
  type ResourceToolHandler,
  resourceParameters,
} from './resource/resource-tool.js';
export { prepareTable, serializeTable } from './resource/table.js';
export {
  budgetTokens,
  DEFAULT_TOKEN_BUDGET,
  estimateTokens,
  TOKEN_ESTIMATE_ERROR,
} from './resource/token-estimate.js';
export type { S2SPOptions } from './runtime/options.js';
export { createS2SP } from './runtime/s2sp.js';
export type { S2SP } from './runtime/s2sp-types.js';
export {
  createS2SPServer,
  type ListeningServer,
  type ListenOptions,
  type S2SPServer,
  type S2SPServerOptions,
  type ShutdownOptions,
  type StdioConnection,
} from './server.js';
export { METRIC_NAMES } from './telemetry/metrics.js';
export { traceToolCall } from './telemetry/tool-span.js';
