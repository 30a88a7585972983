/**
 * `@s2sp/server/gateway`: for gateways — programs such as `@s2sp/proxy` that put S2SP in front of
 * an MCP server they do not own — and for servers that declare their resource tools themselves. A
 * tool registered with `createS2SP` needs none of it: these are the parts such a program builds
 * its own table results from (reading a `tools/call`'s request and its S2SP arguments, turning
 * rows it parsed itself into the result a resource tool returns, measuring columns and plain text
 * in tokens), and the header that carries a client's sealed address to the tools behind the
 * servers' edge.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

export { CLIENT_ADDRESS_HEADER } from './limits/client-quota.js';
export type { ClientConcurrencyLimit } from './limits/concurrency-limit.js';
export { readToolCall, type ToolCall, type ToolCallView } from './mcp/tool-call.js';
export { profileColumns } from './resource/column-profile.js';
export { plainTextTokens } from './resource/plain-tokens.js';
export {
  resourceExtensionParameters,
  resourceToolDescription,
  shortResourceToolParameters,
} from './resource/resource-tool.js';
export type { RowBytes } from './resource/row-bytes.js';
export type { RowJson } from './resource/table.js';
export {
  parseTableRequest,
  type TableRequest,
  type TableResultArguments,
} from './resource/table-request.js';
export type { TableResultContext } from './resource/table-result.js';
