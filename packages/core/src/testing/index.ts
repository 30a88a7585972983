/**
 * Test helpers for S2SP implementations, published as `@s2sp/core/testing`. Requires `vitest`.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */
export { describeBodyStoreContract } from './body-store-contract.js';
export { makeStoredTable } from './make-stored-table.js';
export { readTaken } from './read-taken.js';
