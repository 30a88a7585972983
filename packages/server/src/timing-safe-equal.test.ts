import { describe, expect, it } from 'vitest';
import { timingSafeEqual } from './timing-safe-equal.js';

describe('timingSafeEqual', () => {
  it('is true only for the same bytes', () => {
    expect(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 0]))).toBe(false);
  });
});
