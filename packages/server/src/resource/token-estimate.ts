/**
 * A cheap, tokenizer-free upper estimate of how many o200k_base tokens a text costs, for the
 * resource tool's token budget. Shipping a BPE vocabulary (several MB) into every server to count
 * a response exactly is not worth it: the budget is a cap, so the estimate only has to be at
 * least the real count on typical JSON, and a little over is cheap (a page holds fewer rows).
 *
 * @module
 */

/** Default token budget of a resource tool's control-plane response (about 8 000 o200k tokens). */
export const DEFAULT_TOKEN_BUDGET = 8000;

const LETTER = 1;
const DIGIT = 2;
const SPACE = 3;
const PUNCT = 4;
const OTHER = 5;

function kind(code: number): number {
  if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95) return LETTER;
  if (code >= 48 && code <= 57) return DIGIT;
  if (code === 32 || code === 9 || code === 10 || code === 13) return SPACE;
  if (code < 128) return PUNCT;
  return OTHER;
}

/**
 * Estimates the o200k_base tokens of `text` from runs of character classes: a word costs one
 * token per 4 letters (common words are one token whatever their length; rare ones split into
 * pieces of 3–4 letters), digits one per 3 (o200k_base splits numbers in threes), punctuation one
 * per 2 characters (JSON's `":"`, `","`, `{"` are single tokens), a space before a word nothing
 * (it merges with the word), and every non-ASCII character one. Linear in the text's length.
 *
 * @param text - any text, typically compact JSON
 * @returns an estimate that is at least the real count for JSON of ordinary text and numbers
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const k = kind(text.charCodeAt(i));
    let j = i + 1;
    if (k !== OTHER) {
      while (j < n && kind(text.charCodeAt(j)) === k) j++;
    }
    const length = j - i;
    if (k === LETTER) tokens += Math.ceil(length / 4);
    else if (k === DIGIT) tokens += Math.ceil(length / 3);
    else if (k === PUNCT) tokens += Math.ceil(length / 2);
    else if (k === SPACE) {
      const next = j < n ? kind(text.charCodeAt(j)) : SPACE;
      if (!(length === 1 && (next === LETTER || next === DIGIT))) tokens += 1;
    } else tokens += 1;
    i = j;
  }
  return tokens;
}
