import { generateToken, tokenStorageKey } from '@s2sp/core';
import { thrownCode } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { decodePageCursor, encodePageCursor, pageStorageKey } from './page-cursor.js';

describe('page cursors', () => {
  it('round-trips the token and page', () => {
    const token = generateToken();
    expect(decodePageCursor(encodePageCursor(token, 3))).toEqual({ token, page: 3 });
  });

  it.each([
    ['c1.short.1'],
    [`c2.${'a'.repeat(43)}.1`],
    [`c1.${'a'.repeat(43)}.x`],
    [`c1.${'a'.repeat(43)}.12345678`],
    [42],
    [null],
  ])('rejects %j with invalid_request', (value) => {
    expect(thrownCode(() => decodePageCursor(value))).toBe('invalid_request');
  });

  it('keys each page apart from the table and from other pages, by digest', async () => {
    const token = generateToken();
    const keys = new Set([
      await tokenStorageKey(token),
      await pageStorageKey(token, 1),
      await pageStorageKey(token, 2),
    ]);
    expect(keys.size).toBe(3);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{64}$/);
  });
});
