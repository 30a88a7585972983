import { describe, expect, it } from 'vitest';
import { estimateTokens } from './token-estimate.js';

describe('estimateTokens', () => {
  it('counts nothing for empty text', () => {
    expect(estimateTokens('')).toBe(0);
  });

  it('charges words by length, digits in threes and punctuation in pairs', () => {
    expect(estimateTokens('Advisory')).toBe(2);
    expect(estimateTokens('1234567')).toBe(3);
    expect(estimateTokens('":"')).toBe(2);
    // A single space before a word merges with it.
    expect(estimateTokens('Wind Advisory')).toBe(3);
    expect(estimateTokens('a  b')).toBe(3);
  });

  it('charges each non-ASCII character', () => {
    expect(estimateTokens('日本語')).toBe(3);
  });

  it('is at least the o200k_base count of a typical abstract row (16 tokens)', () => {
    // 16 is the real o200k_base count of this row (measured with js-tiktoken in the bench).
    const row = '{"_row_id":0,"event":"Wind Advisory","severity":"Moderate"}';
    expect(estimateTokens(row)).toBeGreaterThanOrEqual(16);
    expect(estimateTokens(row)).toBeLessThanOrEqual(32);
  });
});
