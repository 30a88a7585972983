import { codeAndDataOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { createMemoryStore, MemoryStoreOptionsSchema } from './memory-store.js';

describe('the memory store’s options schema', () => {
  it('createMemoryStore applies its defaults and names a bad option', () => {
    expect(MemoryStoreOptionsSchema.parse({})).toEqual({
      maxBytes: 256 * 1024 * 1024,
      maxEntries: 100_000,
    });
    expect(codeAndDataOf(() => createMemoryStore({ maxEntries: 0 }))).toEqual([
      'invalid_config',
      { option: 'maxEntries' },
    ]);
    expect(codeAndDataOf(() => createMemoryStore({ maxBytes: 1.5 }))).toEqual([
      'invalid_config',
      { option: 'maxBytes' },
    ]);
  });
});
