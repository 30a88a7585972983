/**
 * `@s2sp/core`: the pure protocol logic of S2SP. No network, no file system, no `node:` imports;
 * it runs anywhere WebCrypto does.
 *
 * This file is the package's public API: adding an export here is an API change.
 *
 * @module
 */

export { assertKnownColumns, parseAbstractDomains } from './abstract-domains.js';
export { type BodyCarrier, readBodyCapped } from './body-reader.js';
export type {
  BodyStore,
  BodyStoreStats,
  PutOptions,
  StoredTable,
  TakenRows,
} from './body-store.js';
export { bodyRows, type ColumnSplit, serializeTable, splitColumns } from './column-split.js';
export {
  applyColumnMapping,
  type ConsumerArguments,
  type ConsumerRequest,
  type MergeOptions,
  mergeRows,
  parseConsumerArguments,
} from './consumer.js';
export {
  concatBytes,
  DATA_PATH_PREFIX,
  type DataPlaneRequest,
  DataPlaneRequestSchema,
  type DataPlaneResponse,
  DataPlaneResponseSchema,
  DEFAULT_MAX_REQUEST_BYTES,
  formatIssues,
  HEALTH_PATH,
  parseDataPlaneRequest,
  renderDataPlaneResponse,
  requestedRowIds,
} from './data-plane.js';
export {
  S2SP_ERROR_CODES,
  S2SP_ERROR_STATUS,
  S2SPError,
  type S2SPErrorCode,
  type S2SPErrorOptions,
} from './errors.js';
export { isPlainObject, parseJsonArgument, type Row } from './json.js';
export {
  assertValidTtl,
  createMemoryStore,
  encodeRows,
  type MemoryStoreOptions,
  storedTableSize,
} from './memory-store.js';
export {
  CONSUMER_TOOL_PARAMETERS,
  DEFAULT_TTL_SECONDS,
  RESOURCE_TOOL_PARAMETERS,
} from './protocol.js';
export {
  buildAsyncResult,
  buildSyncResult,
  isS2SPResult,
  type Mode,
  ModeSchema,
  RowWithIdSchema,
  type S2SPResult,
  S2SPResultSchema,
  serializePlainResult,
  serializeS2SPResult,
} from './resource-result.js';
export {
  prepareTable,
  projectRow,
  ROW_ID,
  type RowWithId,
  serializeRow,
  type Table,
} from './table.js';
export {
  buildResourceUrl,
  generateToken,
  isTokenShape,
  normalizePublicUrl,
  type ParsedResourceUrl,
  type ParseResourceUrlOptions,
  parseResourceUrl,
  TOKEN_BYTES,
  tokenStorageKey,
} from './token.js';
export { type ErrorBody, ErrorBodySchema, toErrorBody } from './wire-error.js';
