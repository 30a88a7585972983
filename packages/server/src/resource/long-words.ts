/**
 * Which long words o200k_base spells as one token, for the token estimate: a 64 Kbit Bloom filter
 * of its 8,125 tokens of 10 or more ASCII letters, small or Capitalised, with or without a leading
 * space (` information`, `Representative`). A length alone cannot tell ` implementation` (one
 * token) from ` reimbursements` (three): read by its length, English prose of long everyday words
 * was estimated 12% high. The filter (8 KB, shipped as base64 in `long-words-data.ts`) is built
 * from js-tiktoken's o200k_base by `long-words.test.ts`, which checks the shipped one against it;
 * fewer than 5% of the long words it has not (rare ones) pass it as one token.
 *
 * @module
 */

import { LONG_WORDS_FILTER } from './long-words-data.js';

/** The filter's size in bits (a power of two) and the bits set for each word. */
const BITS = 1 << 16;
const PROBES = 3;

/**
 * FNV-1a of the code units `t[start..end)`: the word with its leading space, if any, as the
 * tokenizer's piece has it.
 */
function hash(t: ArrayLike<number>, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ (t[i] as number), 0x01000193);
  return h >>> 0;
}

/** The `probe`-th bit of a word whose hash is `h` (double hashing: `h`, then `h`'s odd mix). */
function bit(h: number, probe: number): number {
  const step = (Math.imul(h, 0x9e3779b1) >>> 15) | 1;
  return (h + probe * step) & (BITS - 1);
}

/**
 * A filter of `words` in the layout {@link isLongWord} reads, as base64.
 *
 * @param words - the pieces to admit, each as the tokenizer spells it (` word`, `Word`)
 */
export function buildLongWordFilter(words: Iterable<string>): string {
  const bits = new Uint8Array(BITS >> 3);
  for (const word of words) {
    const codes = Array.from(word, (c) => c.charCodeAt(0));
    const h = hash(codes, 0, codes.length);
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
const FILTER = Uint8Array.from(atob(LONG_WORDS_FILTER), (c) => c.charCodeAt(0));

/**
 * Whether the piece `t[start..end)` (a word of ASCII letters with its leading space, if any) is
 * one o200k_base token, as far as the filter knows.
 */
export function isLongWord(t: ArrayLike<number>, start: number, end: number): boolean {
  const h = hash(t, start, end);
  for (let p = 0; p < PROBES; p++) {
    const b = bit(h, p);
    if (((FILTER[b >> 3] as number) & (1 << (b & 7))) === 0) return false;
  }
  return true;
}
