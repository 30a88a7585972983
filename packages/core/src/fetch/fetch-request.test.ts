import { codeAndDataOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { buildResourceUrl, generateToken } from '../token.js';
import { prepareFetch } from './fetch-request.js';

describe('prepareFetch', () => {
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
