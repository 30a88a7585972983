/**
 * Test helpers for S2SP implementations, published as `@s2sp/core/testing`. Requires `vitest`.
 *
 * @module
 */
export { type BodyStoreContractOptions, describeBodyStoreContract } from './body-store-contract.js';
export { makeStoredTable } from './make-stored-table.js';
export { type ReadTakenRows, readTaken } from './read-taken.js';
