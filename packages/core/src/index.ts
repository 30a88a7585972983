/**
 * `@s2sp/core`: the protocol of S2SP — wire schemas, errors, tokens, the body-store contract with
 * an in-memory store, and the data-plane client. No file system and no `node:` imports; it runs
 * anywhere WebCrypto and `fetch` do. Node-only helpers are at `@s2sp/core/node`, the store
 * contract suite at `@s2sp/core/testing`, and helpers for the sibling `@s2sp/*` packages at
 * `@s2sp/core/internal` (not covered by semver).
 *
 * This file is the package's public API: adding an export here is an API change.
 *
 * @module
 */

export type {
  BodyStore,
  BodyStoreStats,
  PutOptions,
  StoredTable,
  TakenRows,
} from './body-store.js';
export { type ColumnSplit, serializeTable, splitColumns } from './column-split.js';
export {
  DATA_PATH_PREFIX,
  type DataPlaneRequest,
  DataPlaneRequestSchema,
  type DataPlaneResponse,
  DataPlaneResponseSchema,
  HEALTH_PATH,
} from './data-plane.js';
export { type ConsumerDestinations, isPublicHostname } from './destination.js';
export {
  S2SP_ERROR_CODES,
  S2SP_ERROR_STATUS,
  S2SPError,
  type S2SPErrorCode,
  type S2SPErrorOptions,
} from './errors.js';
export {
  DEFAULT_FETCH_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  type FetchBodyOptions,
  type FetchedBody,
  fetchBody,
} from './fetch-body.js';
export { type FetchBodyRowsOptions, fetchBodyRows } from './fetch-body-rows.js';
export type { Row } from './json.js';
export { type LogFields, type Logger, silentLogger } from './logger.js';
export { createMemoryStore, type MemoryStoreOptions } from './memory-store.js';
export {
  CONSUMER_TOOL_PARAMETERS,
  DDI_SCHEME,
  DEFAULT_TTL_SECONDS,
  RESOURCE_TOOL_PARAMETERS,
} from './protocol.js';
export {
  isS2SPResult,
  type Mode,
  ModeSchema,
  RowWithIdSchema,
  type S2SPResult,
  S2SPResultSchema,
} from './resource-result.js';
export { NDJSON_MEDIA_TYPE, TOTAL_ROWS_HEADER } from './row-stream.js';
export { prepareTable, ROW_ID, type RowWithId, type Table } from './table.js';
export {
  buildResourceUrl,
  generateToken,
  type ParsedResourceUrl,
  type ParseResourceUrlOptions,
  parseResourceUrl,
  TOKEN_BYTES,
  tokenStorageKey,
} from './token.js';
export { type ErrorBody, ErrorBodySchema } from './wire-error.js';
