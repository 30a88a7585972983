/**
 * `@s2sp/core/store`: everything a body-store author needs. The {@link BodyStore} interface and
 * its value types, the in-process store (the default of `@s2sp/server`), and the rules every
 * store shares so that they agree: the TTL check, what an entry is charged against a byte budget,
 * the refusal of a take that asks for more rows than the table has, the row encoding the memory
 * store keeps, and how a take's answer is built ({@link selectRows}) and read
 * ({@link takenRowBytes}, {@link collectBytes}), and the pool of reusable buffers a store that
 * holds tables encoded can keep them in ({@link createBytePool}). Run `describeBodyStoreContract` from
 * `@s2sp/core/testing` against your store. Also the one way a server filters a table's rows
 * ({@link filterRows}, with its bound on the work).
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

export { filterRows } from '../row-filter.js';
export type {
  BodyStore,
  BodyStoreStats,
  PutOptions,
  StoredTable,
  TakenRows,
  TakeOptions,
  TakeRetry,
} from './body-store.js';
export { createBytePool } from './byte-pool.js';
export { collectBytes } from './bytes.js';
export { encodeRows } from './encode-rows.js';
export { chunksOf, heldPieces } from './held-chunks.js';
export {
  createMemoryStore,
  type MemoryStoreOptions,
  MemoryStoreOptionsSchema,
} from './memory-store.js';
export {
  assertValidTtl,
  chargedEntryBytes,
  storedTableSize,
  storeFullError,
  tooManyRowIds,
} from './store-rules.js';
export {
  selectRows,
  takenRowBytes,
} from './taken-rows.js';
