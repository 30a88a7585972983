/**
 * Which words o200k_base spells as one token, for the token estimate: a Bloom filter of its
 * tokens that are a space and 5 or more small ASCII letters (` gusty` is not one, ` drizzle` is),
 * or 10 or more letters, small or Capitalised, with or without a leading space
 * (` Representative`, `information`). A length alone cannot tell them apart, and English prose is
 * mostly such words: read by length, a table of repetitive notes of long everyday words was
 * estimated 8–19% high and the real-server matrix's readings (` gusty`, ` squall`, ` overcast`:
 * two tokens each) 7–10% low, in the same estimate. The filter (shipped as base64 in
 * `one-token-words-data.ts`) is built from js-tiktoken's o200k_base by `one-token-words.test.ts`,
 * which checks the shipped one against it; few words it has not pass it as one token
 * ({@link ONE_TOKEN_FALSE_PASSES}).
 *
 * @module
 */

import { ONE_TOKEN_WORDS_FILTER } from './one-token-words-data.js';

/** A word of at least this many small letters after a space is looked up. */
export const SPACED_LOOKUP_LETTERS = 5;
/** A word of this many letters or more, small or Capitalised, after a space or none: looked up. */
export const LONG_LOOKUP_LETTERS = 10;

/** The filter's size in bits (a power of two) and the bits set for each word. */
const BITS = 1 << 18;
const PROBES = 4;

/**
 * The share of words o200k_base does not have as one token that the filter passes as one, at
 * most (its false positives, measured by `one-token-words.test.ts`).
 */
export const ONE_TOKEN_FALSE_PASSES = 0.05;

/**
 * A word's hash is folded from its code units one by one, `h = ((h << 5) | (h >>> 27)) ^ code`:
 * one rotation and one XOR a letter, cheap enough for the estimator to fold while it scans (the
 * five bits that tell small letters apart land in separate places for up to six letters); the
 * filter's probes mix it first ({@link bit}).
 */
/** The hash of a lone space, from which a caller scanning ` word` folds in its letters. */
export const SPACE_HASH = 32;

/** The hash of the code units `t[start..end)`: the word with its leading space, if any. */
function hash(t: ArrayLike<number>, start: number, end: number): number {
  let h = 0;
  for (let i = start; i < end; i++) h = ((h << 5) | (h >>> 27)) ^ (t[i] as number);
  return h;
}

/** The `probe`-th bit of a word whose hash is `h` (double hashing: `h`, then `h`'s odd mix). */
function bit(h: number, probe: number): number {
  const step = (Math.imul(h, 0x9e3779b1) >>> 15) | 1;
  return (h + probe * step) & (BITS - 1);
}

/** murmur3's finaliser: every bit of `h` moves every bit of the result. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * A filter of `words` in the layout {@link isOneToken} reads, as base64.
 *
 * @param words - the pieces to admit, each as the tokenizer spells it (` word`, `Word`)
 */
export function buildOneTokenFilter(words: Iterable<string>): string {
  const bits = new Uint8Array(BITS >> 3);
  for (const word of words) {
    const codes = Array.from(word, (c) => c.charCodeAt(0));
    const h = mix(hash(codes, 0, codes.length));
    for (let p = 0; p < PROBES; p++) {
      const b = bit(h, p);
      bits[b >> 3] = (bits[b >> 3] as number) | (1 << (b & 7));
    }
  }
  let binary = '';
  for (const byte of bits) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The shipped filter's bits, decoded once. */
const FILTER = Uint8Array.from(atob(ONE_TOKEN_WORDS_FILTER), (c) => c.charCodeAt(0));

/**
 * Whether the piece `t[start..end)` (a word of ASCII letters with its leading space, if any) is
 * one o200k_base token, as far as the filter knows.
 */
export function isOneToken(t: ArrayLike<number>, start: number, end: number): boolean {
  return isOneTokenHash(hash(t, start, end));
}

/**
 * {@link isOneToken} of a word whose FNV-1a hash (with its leading space, if any) the caller
 * folded while scanning it: the estimator's hot loop reads each letter once.
 *
 * @param h - the hash, as `Math.imul` leaves it (signed or not)
 */
export function isOneTokenHash(folded: number): boolean {
  const h = mix(folded);
  for (let p = 0; p < PROBES; p++) {
    const b = bit(h, p);
    if (((FILTER[b >> 3] as number) & (1 << (b & 7))) === 0) return false;
  }
  return true;
}
