/**
 * A cheap, tokenizer-free estimate of how many o200k_base tokens a text costs, for the savings
 * receipt and the resource tool's token budget. Shipping a BPE vocabulary (several MB) into every
 * server to count a response exactly is not worth it; this model is within ±5% of the o200k_base
 * count on the JSON tables it was measured on, −6.6% at worst (see {@link TOKEN_ESTIMATE_ERROR}).
 *
 * It splits the text as o200k_base's pre-tokenizer does (words with their leading space or
 * punctuation mark, case changes, digits in threes, punctuation runs, whitespace runs) and charges
 * each piece what the BPE pieces of its kind cost on average: most pieces are one token, long or
 * capitalised words and long punctuation runs a little more, non-ASCII letters by their UTF-8
 * length. Words are where a length misleads: ` drizzle` is one token, ` gusty` two, and prose is
 * mostly such words, so a word of 5+ small letters after a space, and one of 10+ letters small or
 * Capitalised, is looked up in a 32 KB filter of o200k_base's one-token words
 * (`one-token-words.ts`): one token if there, about two if not. The other constants were fitted
 * against js-tiktoken's o200k_base on the calibration shapes of `tokenCorpus`
 * (`@s2sp/test-utils`) and two recorded NWS alert sets, the cost of a word not in the filter on
 * the project's Markdown; they are all in this file, listed at {@link estimateTokens}.
 * `token-estimate.test.ts` checks them on shapes kept out of the fit
 * (`heldOutShapes` of @s2sp/test-utils: repetitive notes, indented JSON, CSV in JSON, …), and
 * `bench/src/token-estimator.ts` measures every shape family, the real-server matrix's answers
 * among them.
 *
 * @module
 */

import {
  isOneToken,
  isOneTokenHash,
  LONG_LOOKUP_LETTERS,
  SPACE_HASH,
  SPACED_LOOKUP_LETTERS,
} from './one-token-words.js';

/** Default token budget of a resource tool's control-plane response (about 8 000 o200k tokens). */
export const DEFAULT_TOKEN_BUDGET = 8000;

/**
 * The error band {@link estimateTokens} is held to against o200k_base, as a fraction: ±10% on
 * JSON tables (measured: within ±5% on every shape of the test corpus, the recorded NWS alerts and
 * the held-out tables of repetitive English notes, compact or indented by spaces or tabs, nested
 * JSON to depth 6, CSV in JSON, numbers, ids, URLs and code; −4% to −6% on the real-server
 * matrix's answers, −6.6% at worst on one of their small recorded ones). Text in one language
 * other than English alone is off by more: Korean +10%, Greek −23% (German −3%).
 */
export const TOKEN_ESTIMATE_ERROR = 0.1;

/**
 * An upper estimate of the o200k_base tokens of `text`, for the token budget (PROTOCOL §7.2):
 * {@link estimateTokens} as if it were at the low end of its error band, so that a response held
 * within a budget by this count is within it in o200k_base tokens too.
 *
 * @param text - any text, typically compact JSON
 */
export function budgetTokens(text: string): number {
  return Math.ceil(estimateTokens(text) / (1 - TOKEN_ESTIMATE_ERROR));
}

// Character classes. Non-ASCII letters count in both the upper- and the lower-case run of a word,
// as o200k's \p{Lo} does; WIDE2/WIDE3 are letters of 2 and 3 UTF-8 bytes.
// Letters are the classes up to WIDE3, so that one comparison tells a letter.
const LOWER = 0;
const UPPER = 1;
const WIDE2 = 2;
const WIDE3 = 3;
const DIGIT = 4;
const SPACE = 5;
const NEWLINE = 6;
const PUNCT = 7;
const SYMBOL = 8;
const ASTRAL = 9;

/** The class of every UTF-16 code unit (64 KiB): one lookup a character in the hot loop. */
const CLASS = new Uint8Array(0x10000);
for (let code = 0; code < 0x10000; code++) CLASS[code] = classify(code);

function classify(code: number): number {
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 48 && code <= 57) return DIGIT;
  if (code === 32 || code === 9 || code === 11 || code === 12) return SPACE;
  if (code === 10 || code === 13) return NEWLINE;
  if (code < 128) return PUNCT;
  // Latin-1's symbols (¡…¿, ×, ÷) are punctuation; every other 2-byte character a letter.
  if (code < 0x800) return code < 0xc0 || code === 0xd7 || code === 0xf7 ? SYMBOL : WIDE2;
  if (code >= 0xd800 && code <= 0xdfff) return ASTRAL;
  // General punctuation to dingbats, CJK punctuation, variation selectors, fullwidth ASCII
  // punctuation, specials.
  if (
    (code >= 0x2000 && code <= 0x2bff) ||
    (code >= 0x3000 && code <= 0x303f) ||
    (code >= 0xfe00 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff20) ||
    code >= 0xfff0
  )
    return SYMBOL;
  return WIDE3;
}

/**
 * Texts up to this many code units are read through scratch arrays kept between calls (256 KiB of
 * bytes and 512 KiB of units at most); a longer one gets arrays of its own.
 */
const SCRATCH_UNITS = 1 << 18;
/** Up to this length a text is copied by its code units: encoding costs more than the copy. */
const SHORT_TEXT = 64;
let scratchBytes = new Uint8Array(SHORT_TEXT + 1);
let scratchUnits = new Uint16Array(SHORT_TEXT + 1);
const encoder = new TextEncoder();

/**
 * `text`'s UTF-16 code units, then a 0 where the text ends: an ASCII text from its UTF-8 bytes,
 * which are its code units (`TextEncoder` writes them, and `set` widens them, at memory speed), any
 * other unit by unit. The estimator reads them faster than the string's `charCodeAt` (1.4 times on
 * 200 rows of 1.2 KB), always from one kind of array. The 0 reads as the end of the text did
 * (`NaN`): no letter, digit, space, line break, apostrophe or slash, and `0 | 32` is `NaN | 32`;
 * every loop that could take it for a mark stops at the length. Valid until the next call.
 */
function codeUnits(text: string): Uint16Array {
  const n = text.length;
  if (n >= scratchUnits.length && n < SCRATCH_UNITS) {
    const size = Math.min(SCRATCH_UNITS, Math.max(n + 1, 2 * scratchUnits.length));
    scratchUnits = new Uint16Array(size);
    scratchBytes = new Uint8Array(size);
  }
  const units = n < scratchUnits.length ? scratchUnits : new Uint16Array(n + 1);
  units[n] = 0;
  if (n > SHORT_TEXT) {
    const bytes = n < scratchBytes.length ? scratchBytes : new Uint8Array(n);
    const ascii = bytes.subarray(0, n);
    const { read, written } = encoder.encodeInto(text, ascii);
    if (read === n && written === n) {
      units.set(ascii);
      return units;
    }
  }
  for (let i = 0; i < n; i++) units[i] = text.charCodeAt(i);
  return units;
}

/**
 * Estimates the o200k_base tokens of `text`. One pass over its code units ({@link codeUnits}): a
 * piece costs 1 token, plus, for a word of `a` ASCII letters —
 * of 5 or more small letters after a space, or of 10 or more small or Capitalised after a space
 * or no mark: nothing if o200k_base has it as one token ({@link isOneToken}), else as
 * `unknownWordCost` says (2 after a space, 2.1 after no mark, a little more when longer);
 * lower-case or Capitalised after a space: 0.06 per letter past 5; with no leading mark: 0.26 per
 * letter past 7; after a tab, a double quote or a comma: 1 for the mark, then as with no mark;
 * after another punctuation mark: 0.24 per letter past 2; ALL CAPS after a space: 0.38 per letter
 * past 6, else 0.28 per letter; MIXedcase: 0.87 per capital past the first and 0.36 per
 * small letter past the first. Non-ASCII letters: 0.48 per 2-byte and 0.68 per 3-byte letter in
 * a word with ASCII letters, else 0.44 + 0.19 per 2-byte and 0.68 per 3-byte letter (at least
 * 1). A punctuation run: 1, plus 0.44 per ASCII mark past 4, 1 per non-ASCII mark, 0.72 per
 * UTF-16 unit of an astral character (emoji). Digits: 1 per group of three. Whitespace: 1 a run
 * (a lone tab before a mark is a run of its own), and 1 more per 16 line breaks or 64 spaces.
 *
 * @param text - any text, typically compact JSON
 * @returns the estimate, rounded: within {@link TOKEN_ESTIMATE_ERROR} of the o200k_base count on
 *   JSON tables
 */
export function estimateTokens(text: string): number {
  const n = text.length;
  const t = codeUnits(text);
  let tokens = 0;
  let i = 0;
  while (i < n) {
    const code = t[i] as number;
    if (code === 32) {
      // A space and a word of small ASCII letters, the commonest piece of prose, in one loop.
      // Its hash is folded as it is read, for the one-token lookup.
      let j = i + 1;
      let c = t[j] as number;
      let h = SPACE_HASH;
      for (; c >= 97 && c <= 122; c = t[++j] as number) h = ((h << 5) | (h >>> 27)) ^ c;
      if (j > i + 1 && c !== 39 && !(c >= 128 && (CLASS[c] as number) <= WIDE3)) {
        const ascii = j - i - 1;
        tokens +=
          ascii < SPACED_LOOKUP_LETTERS
            ? (SPACED_WORD[ascii] as number)
            : isOneTokenHash(h)
              ? 1
              : unknownWordCost(SPACE, ascii);
        i = j;
        continue;
      }
    }
    const k = CLASS[code] as number;
    if (k === DIGIT) {
      // \p{N}{1,3}: one token a group.
      let j = i + 1;
      for (let c = t[j] as number; c >= 48 && c <= 57; c = t[++j] as number);
      tokens += Math.ceil((j - i) / 3);
      i = j;
      continue;
    }
    if (
      k <= WIDE3 ||
      ((k === SPACE || k === PUNCT || k === SYMBOL) &&
        i + 1 < n &&
        (CLASS[t[i + 1] as number] as number) <= WIDE3)
    ) {
      // A word, with at most one leading space or mark: [Lu Lo]*[Ll Lo]*, then a contraction.
      // A tab, a double quote or a comma leads its word in the pre-tokenizer but BPE has (almost)
      // no merges for it: a token of its own (a tab-indented JSON key, `\t"city"`; a CSV cell,
      // `,Austin`; read as a mark leading its word, tab-indented JSON was 12% low, CSV 7%).
      const lead = t[i] as number;
      const lone = lead === 9 || lead === 34 || lead === 44;
      const prefix = k <= WIDE3 || lone ? -1 : k;
      if (lone) tokens += 1;
      if (k > WIDE3) i++;
      // Most words are ASCII, small letters after at most one capital: scanned by their codes in
      // one loop and charged as `wordCost` would. Any other word takes the general loops below.
      const start = i;
      let code = t[i] as number;
      if (code >= 65 && code <= 90) code = t[++i] as number;
      for (; code >= 97 && code <= 122; code = t[++i] as number);
      if (
        code !== 39 &&
        !(code >= 128 && (CLASS[code] as number) <= WIDE3) &&
        !(code >= 65 && code <= 90 && i === start + 1 && upperAt(t, start))
      ) {
        const ascii = i - start;
        // A long word after a space or no mark: one token if o200k_base has it.
        tokens +=
          ascii < LONG_LOOKUP_LETTERS || prefix > SPACE
            ? asciiWordCost(prefix, ascii)
            : isOneToken(t, prefix === SPACE ? start - 1 : start, i)
              ? 1
              : unknownWordCost(prefix, ascii);
        continue;
      }
      i = start;
      let upper = 0;
      let lower = 0;
      let wide2 = 0;
      let wide3 = 0;
      const upperFirst = (CLASS[t[i] as number] as number) === UPPER;
      for (; i < n; i++) {
        const c = CLASS[t[i] as number];
        if (c === UPPER) upper++;
        else if (c === WIDE2) wide2++;
        else if (c === WIDE3) wide3++;
        else break;
      }
      for (; i < n; i++) {
        const c = CLASS[t[i] as number];
        if (c === LOWER) lower++;
        else if (c === WIDE2) wide2++;
        else if (c === WIDE3) wide3++;
        else break;
      }
      if ((t[i] as number) === 39) i = afterContraction(t, i, n);
      tokens += wordCost(prefix, upper, lower, wide2, wide3, upperFirst);
      continue;
    }
    if (k === SPACE || k === NEWLINE) {
      // \s*[\r\n]+ up to the last line break; else the spaces, less one before a word or mark,
      // which leads that piece (a lone space before a digit stands alone, and so does a lone tab
      // before a mark: only a space leads a punctuation run).
      let j = i;
      let lastBreak = -1;
      for (; j < n; j++) {
        const ck = CLASS[t[j] as number];
        if (ck === NEWLINE) lastBreak = j;
        else if (ck !== SPACE) break;
      }
      const start = i;
      if (lastBreak >= 0) i = lastBreak + 1;
      else if (j === n) i = j;
      else if (j - i > 1) i = j - 1;
      else if (CLASS[t[j] as number] === DIGIT || (t[i] as number) !== 32) i = j;
      else {
        // One space before punctuation: ` ?[^\s\p{L}\p{N}]+`, charged as the run.
        tokens += punctuation(t, j, n);
        i = runEnd;
        continue;
      }
      // Line breaks take a token for about 16, spaces for about 64 (o200k's longest runs).
      tokens += 1 + ((i - start - 1) >> (lastBreak >= 0 ? 4 : 6));
      continue;
    }
    tokens += punctuation(t, i, n);
    i = runEnd;
  }
  return Math.round(tokens);
}

/** Past `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d` (any case) at `i`, which join the word. */
function afterContraction(t: Uint16Array, i: number, n: number): number {
  if (t[i] !== 39 || i + 1 >= n) return i;
  const a = (t[i + 1] as number) | 32;
  if (a === 115 || a === 116 || a === 109 || a === 100) return i + 2;
  const b = (t[i + 2] as number) | 32;
  if ((a === 114 && b === 101) || (a === 118 && b === 101) || (a === 108 && b === 108))
    return i + 3;
  return i;
}

/** Whether the code unit at `i` is an ASCII capital. */
function upperAt(t: Uint16Array, i: number): boolean {
  const code = t[i] as number;
  return code >= 65 && code <= 90;
}

/** {@link asciiWordCost} after a space, by the word's length up to 63: the commonest piece. */
const SPACED_WORD = Float64Array.from({ length: 64 }, (_, ascii) => asciiWordCost(SPACE, ascii));

/**
 * A word of `ascii` ASCII letters, small or Capitalised, that o200k_base does not have as one
 * token (after a space or no mark, `prefix` SPACE or -1): two tokens after a space, 2.1 after no
 * mark, a little more a letter past 9 or 10, never less than by its length alone (a long run of
 * letters is no word at all).
 */
function unknownWordCost(prefix: number, ascii: number): number {
  const word =
    prefix === SPACE
      ? UNKNOWN_SPACED + UNKNOWN_SPACED_LETTER * Math.max(0, ascii - 9)
      : UNKNOWN_BARE + UNKNOWN_BARE_LETTER * Math.max(0, ascii - 10);
  return Math.max(word, asciiWordCost(prefix, ascii));
}
// Measured on the project's Markdown (real English prose) against o200k_base: a word of 5–10
// small letters after a space that is not one token is two (2.01–2.08 by length), a longer one
// about 2.3; one of 10+ letters after no mark 2.15, 2.5 at 11, 3 at 14.
const UNKNOWN_SPACED = 2;
const UNKNOWN_SPACED_LETTER = 0.1;
const UNKNOWN_BARE = 2.1;
const UNKNOWN_BARE_LETTER = 0.2;

/** `wordCost` of a word of `ascii` ASCII letters, all small or Capitalised. */
function asciiWordCost(prefix: number, ascii: number): number {
  if (prefix === SPACE) return 1 + 0.06 * Math.max(0, ascii - 5);
  if (prefix === -1) return 1 + 0.26 * Math.max(0, ascii - 7);
  return 1 + 0.24 * Math.max(0, ascii - 2);
}

function wordCost(
  prefix: number,
  upper: number,
  lower: number,
  wide2: number,
  wide3: number,
  upperFirst: boolean,
): number {
  const ascii = upper + lower;
  if (wide2 + wide3 > 0) {
    if (ascii === 0) return Math.max(1, 0.44 + 0.19 * wide2 + 0.68 * wide3);
    return 1 + 0.48 * wide2 + 0.68 * wide3 + 0.26 * Math.max(0, ascii - 7);
  }
  if (upper === 0 || (upper === 1 && upperFirst)) return asciiWordCost(prefix, ascii);
  if (lower === 0) return prefix === SPACE ? 1 + 0.38 * Math.max(0, ascii - 6) : 1 + 0.28 * ascii;
  return 1 + 0.87 * (upper - 1) + 0.36 * Math.max(0, lower - 1);
}

// Where the last punctuation run ended: `punctuation` returns its cost and leaves its end here,
// so that the hot loop allocates nothing.
let runEnd = 0;

/** The cost of the punctuation run at `i` (` ?[^\s\p{L}\p{N}]+[\r\n/]*` less the space). */
function punctuation(t: Uint16Array, i: number, n: number): number {
  let ascii = 0;
  let wide = 0;
  let astral = 0;
  let j = i;
  for (; j < n; j++) {
    const c = CLASS[t[j] as number];
    if (c === PUNCT) ascii++;
    else if (c === SYMBOL) wide++;
    else if (c === ASTRAL) astral++;
    else break;
  }
  for (; j < n; j++) {
    const c = t[j] as number;
    if (c !== 10 && c !== 13 && c !== 47) break;
  }
  runEnd = j;
  const base = ascii > 0 ? 1 + 0.44 * Math.max(0, ascii - 4) : 0;
  return Math.max(1, base + wide + 0.72 * astral);
}
