import { S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { parseJsonPointer, pointerTo, resolveJsonPointer } from './json-pointer.js';

describe('JSON Pointer', () => {
  it('parses and resolves RFC 6901 pointers, escapes included', () => {
    const doc = { rows: [{ a: 1 }], 'a/b': { 'm~n': 2 } };
    expect(parseJsonPointer('')).toEqual([]);
    expect(resolveJsonPointer(doc, parseJsonPointer('/rows/0/a'))).toBe(1);
    expect(resolveJsonPointer(doc, parseJsonPointer('/a~1b/m~0n'))).toBe(2);
    expect(resolveJsonPointer(doc, parseJsonPointer(pointerTo('a/b')))).toEqual({ 'm~n': 2 });
  });

  it('returns undefined for missing steps and never walks into prototypes', () => {
    expect(resolveJsonPointer({ a: [1] }, ['a', '1'])).toBeUndefined();
    expect(resolveJsonPointer({ a: [1] }, ['a', '01'])).toBeUndefined();
    expect(resolveJsonPointer({}, ['constructor'])).toBeUndefined();
    expect(resolveJsonPointer({}, ['__proto__'])).toBeUndefined();
  });

  it('rejects a pointer that does not start with "/"', () => {
    try {
      parseJsonPointer('rows');
      expect.unreachable();
    } catch (error) {
      expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
    }
  });
});
