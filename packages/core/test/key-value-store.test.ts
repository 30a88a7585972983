import { describeBodyStoreContract } from '@s2sp/core/testing';
import { createKeyValueStore, createMapBackend } from '../examples/key-value-store.js';

// The example store of CONTRIBUTING's walkthrough, written with public exports only, passes the
// same contract as the built-in stores (it leaves out the optional repeatable takes).
describeBodyStoreContract(
  'a key-value store built on public exports',
  async () => createKeyValueStore(createMapBackend()),
  { repeatableTakes: false },
);
