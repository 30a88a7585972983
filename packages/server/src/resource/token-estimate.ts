/**
 * A cheap, tokenizer-free estimate of how many o200k_base tokens a text costs, for the savings
 * receipt and the resource tool's token budget. Shipping a BPE vocabulary (several MB) into every
 * server to count a response exactly is not worth it; this model is within ±5% of the o200k_base
 * count on the JSON tables it was measured on (see {@link TOKEN_ESTIMATE_ERROR}).
 *
 * It splits the text as o200k_base's pre-tokenizer does (words with their leading space or
 * punctuation mark, case changes, digits in threes, punctuation runs, whitespace runs) and charges
 * each piece what the BPE pieces of its kind cost on average: most pieces are one token, long or
 * capitalised words and long punctuation runs a little more, non-ASCII letters by their UTF-8
 * length. The constants were fitted against js-tiktoken's o200k_base on the calibration shapes of
 * `tokenCorpus` (`@s2sp/test-utils`) and two recorded NWS alert sets; `token-estimate.test.ts`
 * checks them on shapes kept out of the fit.
 *
 * @module
 */

/** Default token budget of a resource tool's control-plane response (about 8 000 o200k tokens). */
export const DEFAULT_TOKEN_BUDGET = 8000;

/**
 * The error band {@link estimateTokens} is held to against o200k_base, as a fraction: ±10% on
 * JSON tables (measured: within ±5% on every shape of the test corpus and the recorded NWS
 * alerts). Text in one language other than English alone is off by more: German −7%, Korean +10%,
 * Greek −23%.
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
 * Estimates the o200k_base tokens of `text`. One pass over the text, no allocation: a piece costs
 * 1 token, plus, for a word of `a` ASCII letters —
 * lower-case or Capitalised after a space: 0.06 per letter past 5; with no leading mark: 0.26 per
 * letter past 7; after a punctuation mark: 0.24 per letter past 2; ALL CAPS after a space: 0.38
 * per letter past 6, else 0.28 per letter; MIXedcase: 0.87 per capital past the first and 0.36 per
 * small letter past the first. Non-ASCII letters: 0.48 per 2-byte and 0.68 per 3-byte letter in
 * a word with ASCII letters, else 0.44 + 0.19 per 2-byte and 0.68 per 3-byte letter (at least
 * 1). A punctuation run: 1, plus 0.44 per ASCII mark past 4, 1 per non-ASCII mark, 0.72 per
 * UTF-16 unit of an astral character (emoji). Digits: 1 per group of three. Whitespace: 1 a run,
 * and 1 more per 16 line breaks or 64 spaces.
 *
 * @param text - any text, typically compact JSON
 * @returns the estimate, rounded: within {@link TOKEN_ESTIMATE_ERROR} of the o200k_base count on
 *   JSON tables
 */
export function estimateTokens(text: string): number {
  const n = text.length;
  let tokens = 0;
  let i = 0;
  while (i < n) {
    const code = text.charCodeAt(i);
    if (code === 32) {
      // A space and a word of small ASCII letters, the commonest piece of prose, in one loop.
      let j = i + 1;
      let c = text.charCodeAt(j);
      for (; c >= 97 && c <= 122; c = text.charCodeAt(++j));
      if (j > i + 1 && c !== 39 && !(c >= 128 && (CLASS[c] as number) <= WIDE3)) {
        tokens += asciiWordCost(SPACE, j - i - 1);
        i = j;
        continue;
      }
    }
    const k = CLASS[code] as number;
    if (k === DIGIT) {
      // \p{N}{1,3}: one token a group.
      let j = i + 1;
      for (let c = text.charCodeAt(j); c >= 48 && c <= 57; c = text.charCodeAt(++j));
      tokens += Math.ceil((j - i) / 3);
      i = j;
      continue;
    }
    if (
      k <= WIDE3 ||
      ((k === SPACE || k === PUNCT || k === SYMBOL) &&
        i + 1 < n &&
        (CLASS[text.charCodeAt(i + 1)] as number) <= WIDE3)
    ) {
      // A word, with at most one leading space or mark: [Lu Lo]*[Ll Lo]*, then a contraction.
      // A tab leads its word in the pre-tokenizer but BPE has no merges for it: a token of its own.
      const tab = text.charCodeAt(i) === 9;
      const prefix = k <= WIDE3 || tab ? -1 : k;
      if (tab) tokens += 1;
      if (k > WIDE3) i++;
      // Most words are ASCII, small letters after at most one capital: scanned by their codes in
      // one loop and charged as `wordCost` would. Any other word takes the general loops below.
      const start = i;
      let code = text.charCodeAt(i);
      if (code >= 65 && code <= 90) code = text.charCodeAt(++i);
      for (; code >= 97 && code <= 122; code = text.charCodeAt(++i));
      if (
        code !== 39 &&
        !(code >= 128 && (CLASS[code] as number) <= WIDE3) &&
        !(code >= 65 && code <= 90 && i === start + 1 && upperAt(text, start))
      ) {
        tokens += asciiWordCost(prefix, i - start);
        continue;
      }
      i = start;
      let upper = 0;
      let lower = 0;
      let wide2 = 0;
      let wide3 = 0;
      const upperFirst = (CLASS[text.charCodeAt(i)] as number) === UPPER;
      for (; i < n; i++) {
        const c = CLASS[text.charCodeAt(i)];
        if (c === UPPER) upper++;
        else if (c === WIDE2) wide2++;
        else if (c === WIDE3) wide3++;
        else break;
      }
      for (; i < n; i++) {
        const c = CLASS[text.charCodeAt(i)];
        if (c === LOWER) lower++;
        else if (c === WIDE2) wide2++;
        else if (c === WIDE3) wide3++;
        else break;
      }
      if (text.charCodeAt(i) === 39) i = afterContraction(text, i);
      tokens += wordCost(prefix, upper, lower, wide2, wide3, upperFirst);
      continue;
    }
    if (k === SPACE || k === NEWLINE) {
      // \s*[\r\n]+ up to the last line break; else the spaces, less one before a word or mark,
      // which leads that piece (a lone space before a digit stands alone).
      let j = i;
      let lastBreak = -1;
      for (; j < n; j++) {
        const ck = CLASS[text.charCodeAt(j)];
        if (ck === NEWLINE) lastBreak = j;
        else if (ck !== SPACE) break;
      }
      const start = i;
      if (lastBreak >= 0) i = lastBreak + 1;
      else if (j === n) i = j;
      else if (j - i > 1) i = j - 1;
      else if (CLASS[text.charCodeAt(j)] === DIGIT) i = j;
      else {
        // One space before punctuation: ` ?[^\s\p{L}\p{N}]+`, charged as the run.
        tokens += punctuation(text, j);
        i = runEnd;
        continue;
      }
      // Line breaks take a token for about 16, spaces for about 64 (o200k's longest runs).
      tokens += 1 + ((i - start - 1) >> (lastBreak >= 0 ? 4 : 6));
      continue;
    }
    tokens += punctuation(text, i);
    i = runEnd;
  }
  return Math.round(tokens);
}

/** Past `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d` (any case) at `i`, which join the word. */
function afterContraction(text: string, i: number): number {
  if (text.charCodeAt(i) !== 39 || i + 1 >= text.length) return i;
  const a = text.charCodeAt(i + 1) | 32;
  if (a === 115 || a === 116 || a === 109 || a === 100) return i + 2;
  const b = text.charCodeAt(i + 2) | 32;
  if ((a === 114 && b === 101) || (a === 118 && b === 101) || (a === 108 && b === 108))
    return i + 3;
  return i;
}

/** Whether the code unit at `i` is an ASCII capital. */
function upperAt(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  return code >= 65 && code <= 90;
}

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
function punctuation(text: string, i: number): number {
  const n = text.length;
  let ascii = 0;
  let wide = 0;
  let astral = 0;
  let j = i;
  for (; j < n; j++) {
    const c = CLASS[text.charCodeAt(j)];
    if (c === PUNCT) ascii++;
    else if (c === SYMBOL) wide++;
    else if (c === ASTRAL) astral++;
    else break;
  }
  for (; j < n; j++) {
    const c = text.charCodeAt(j);
    if (c !== 10 && c !== 13 && c !== 47) break;
  }
  runEnd = j;
  const base = ascii > 0 ? 1 + 0.44 * Math.max(0, ascii - 4) : 0;
  return Math.max(1, base + wide + 0.72 * astral);
}
