/**
 * `@s2sp/core/internal`: helpers shared by the sibling `@s2sp/*` packages (server, client,
 * cache-redis, proxy). Not part of the public API: anything here may change in any release.
 * Import from `@s2sp/core` instead.
 *
 * @module
 */

export { assertKnownColumns, parseAbstractDomains } from './abstract-domains.js';
export { splitPages } from './abstract-pages.js';
export { type BodyCarrier, readBodyCapped } from './body-reader.js';
export { bodyRows } from './column-split.js';
export {
  applyColumnMapping,
  type ConsumerArguments,
  type ConsumerRequest,
  type MergeOptions,
  mergeRows,
  parseConsumerArguments,
  pickRows,
} from './consumer.js';
export {
  concatBytes,
  DEFAULT_MAX_REQUEST_BYTES,
  formatIssues,
  isJsonContentType,
  isJsonWhitespace,
  MAX_REQUEST_ROW_IDS,
  parseDataPlaneRequest,
  renderDataPlaneResponse,
  requestedRowIds,
} from './data-plane.js';
export { sha256, sha256Hex, timingSafeEqual } from './digest.js';
export { describeType, isPlainObject, parseJsonArgument, parseJsonText } from './json.js';
export { type PositiveOptionRules, positiveOption } from './limits.js';
export {
  assertValidTtl,
  chargedEntryBytes,
  ENTRY_OVERHEAD_BYTES,
  encodeRows,
  ROW_OVERHEAD_BYTES,
  storedTableSize,
  tooManyRowIds,
} from './memory-store.js';
export {
  decodePageCursor,
  encodePageCursor,
  type PageCursor,
  pageStorageKey,
} from './page-cursor.js';
export {
  buildAsyncResult,
  buildSyncResult,
  serializePlainResult,
  serializeS2SPResult,
} from './resource-result.js';
export { MAX_HANDOFF_ROW_IDS, parseRowIds } from './row-ids.js';
export {
  NDJSON_MEDIA_TYPE,
  negotiateFormat,
  type RenderedBody,
  type ResponseFormat,
  renderDataPlaneBody,
  TOTAL_ROWS_HEADER,
} from './row-stream.js';
export { projectRow, serializeRow } from './table.js';
export { isTokenShape, normalizePublicUrl } from './token.js';
export {
  ERROR_CODE_META,
  errorCode,
  type ToolErrorResult,
  toolErrorResult,
} from './tool-error-result.js';
export { toErrorBody } from './wire-error.js';
