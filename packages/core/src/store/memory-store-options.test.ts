import { codeAndDataOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { prepareFetch } from '../fetch-body.js';
import { buildResourceUrl, generateToken } from '../token.js';
import { createMemoryStore, MemoryStoreOptionsSchema } from './memory-store.js';

describe('the options schemas of core factories', () => {
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

  it('fetchBody applies its limits and names a bad one', () => {
    const url = buildResourceUrl('https://data.example.com', generateToken());
    expect(prepareFetch(url, {})).toMatchObject({
      timeoutMs: 30_000,
      maxBytes: 64 * 1024 * 1024,
      maxRowBytes: 16 * 1024 * 1024,
    });
    expect(codeAndDataOf(() => prepareFetch(url, { timeoutMs: 0 }))).toEqual([
      'invalid_config',
      { option: 'timeoutMs' },
    ]);
    expect(codeAndDataOf(() => prepareFetch(url, { maxRowBytes: -1 }))).toEqual([
      'invalid_config',
      { option: 'maxRowBytes' },
    ]);
  });
});
