import { describe, expect, it } from 'vitest';
import { S2SPError } from './errors.js';
import { positiveOption } from './options.js';

describe('positiveOption', () => {
  it('returns the value, or the fallback when unset', () => {
    expect(positiveOption('ttl', 2.5, 9)).toBe(2.5);
    expect(positiveOption('ttl', undefined, 9)).toBe(9);
    expect(positiveOption('count', 3, 9, { integer: true })).toBe(3);
  });

  it.each([
    [0, false],
    [-1, false],
    [Number.NaN, false],
    [Number.POSITIVE_INFINITY, false],
    ['3' as unknown as number, false],
    [1.5, true],
  ])('refuses %s (integer: %s) with invalid_config naming the option', (value, integer) => {
    try {
      positiveOption('maxThings', value, 1, { integer });
      expect.unreachable();
    } catch (error) {
      expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
      expect((error as S2SPError).data).toEqual({ option: 'maxThings' });
    }
  });
});
