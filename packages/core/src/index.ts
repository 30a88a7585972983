/**
 * `@s2sp/core`: the protocol of S2SP and nothing else — wire schemas and their types, the one
 * error type and its code → status table, the protocol's constants, tokens and `resource_url`s,
 * the capability, the row-filter grammar, tool error results, and `fetchBody`, the data-plane
 * client. No file system and no `node:` imports; it runs anywhere WebCrypto and `fetch` do.
 *
 * Other entry points, each a public API of its own:
 * - `@s2sp/core/advice`: what the S2SP libraries tell a model — the advice that ends error
 *   messages and the guidance texts of S2SP tools and parameters;
 * - `@s2sp/core/store`: the body-store interface, the in-memory store and the rules stores share;
 * - `@s2sp/core/testing`: the contract suite every body store must pass (needs vitest);
 * - `@s2sp/core/json`: reading JSON from a model or a peer safely, with errors it can act on;
 * - `@s2sp/core/options`: the one rule for numeric options;
 * - `@s2sp/core/receipt`: the savings receipt S2SP results carry in `_meta`;
 * - `@s2sp/core/node`: the public-destinations-only `fetch` for consumers (Node only).
 *
 * This file is the package's public API: adding an export here is an API change.
 *
 * @module
 */

export { readS2SPCapability, type S2SPCapability } from './capability.js';
export {
  type DataPlaneRequest,
  DataPlaneRequestSchema,
  type DataPlaneResponse,
  DataPlaneResponseSchema,
} from './data-plane.js';
export { S2SP_ERROR_STATUS, S2SPError, type S2SPErrorCode } from './errors.js';
export { readBodyCapped } from './fetch/body-reader.js';
export { fetchBody } from './fetch/fetch-body.js';
export { fetchBodyRows } from './fetch/fetch-body-rows.js';
export type { FetchBodyOptions } from './fetch/fetch-request.js';
export type { LogFields, Logger } from './logger.js';
export { PROTOCOL } from './protocol.js';
export { normalizePublicUrl } from './public-url.js';
export {
  type Row,
  type RowWithId,
  type S2SPResult,
  S2SPResultSchema,
} from './resource-result.js';
export {
  matchesFilter,
  parseRowFilter,
  ROW_FILTER_OPERATORS,
  type RowFilter,
} from './row-filter.js';
export { sha256Hex } from './sha256.js';
export {
  buildResourceUrl,
  generateToken,
  isTokenShape,
  parseResourceUrl,
  tokenStorageKey,
} from './token.js';
export { type ToolErrorResult, toolErrorResult } from './tool-error-result.js';
export { type ErrorBody, ErrorBodySchema } from './wire-error.js';
