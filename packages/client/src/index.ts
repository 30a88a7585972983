/**
 * `@s2sp/client`: the agent side of S2SP. `fetchBody` (the data-plane client) is re-exported from
 * `@s2sp/core`, where servers reach it too. Framework adapters live in subpaths:
 * `@s2sp/client/ai-sdk` (Vercel AI SDK) and `@s2sp/client/langchain` (LangChain.js).
 *
 * This file is the package's public API: adding an export here is an API change.
 *
 * @module
 */

export {
  DDI_SCHEME,
  DEFAULT_FETCH_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  type FetchBodyOptions,
  type FetchBodyRowsOptions,
  type FetchedBody,
  fetchBody,
  fetchBodyRows,
} from '@s2sp/core';
export { DdiBuffer, type DdiBufferOptions } from './ddi-buffer.js';
export { S2SPDispatcher, type S2SPDispatcherOptions } from './dispatcher.js';
export {
  type CallToolCapable,
  type WrapMcpClientOptions,
  wrapMcpClient,
} from './wrap-mcp-client.js';
