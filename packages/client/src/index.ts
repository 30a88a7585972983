/**
 * `@s2sp/client`: the agent side of S2SP. `fetchBody` (the data-plane client) is re-exported from
 * `@s2sp/core`, where servers reach it too. `withS2SP` here wraps an official MCP SDK `Client`;
 * every other framework adapter is a `withS2SP` in a subpath named after the framework
 * (`@s2sp/client/ai-sdk`, …): the subpaths of `package.json` `exports`, listed in the README.
 *
 * This file is the package's public API: adding an export here is an API change.
 *
 * @module
 */

export {
  type FetchBodyOptions,
  fetchBody,
  fetchBodyRows,
  readS2SPCapability,
  type S2SPCapability,
} from '@s2sp/core';
export { DdiBuffer, type DdiBufferOptions } from './ddi-buffer.js';
export {
  S2SPDispatcher,
  type S2SPDispatcherOptions,
  type S2SPRefusal,
  type S2SPToolServer,
} from './dispatcher.js';
export { type CallToolCapable, withS2SP } from './mcp-sdk.js';
export type { WithS2SPOptions } from './with-s2sp-options.js';
