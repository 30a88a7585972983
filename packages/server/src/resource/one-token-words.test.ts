import { writeFileSync } from 'node:fs';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import {
  buildOneTokenFilter,
  isOneToken,
  LONG_LOOKUP_LETTERS,
  ONE_TOKEN_FALSE_PASSES,
  SPACED_LOOKUP_LETTERS,
} from './one-token-words.js';
import { ONE_TOKEN_WORDS_FILTER } from './one-token-words-data.js';

const tokenizer = new Tiktoken(o200k);

/** The pieces the estimator looks up, as a regular expression on a token's text. */
const LOOKED_UP = new RegExp(
  `^ [a-z]{${SPACED_LOOKUP_LETTERS},}$|^ ?[A-Za-z][a-z]{${LONG_LOOKUP_LETTERS - 1},}$`,
);

/** o200k_base's tokens the estimator looks up: every one it has as one token. */
function oneTokenWords(): string[] {
  const words: string[] = [];
  for (let rank = 0; rank < 200_000; rank++) {
    let text: string;
    try {
      text = tokenizer.decode([rank]);
    } catch {
      continue;
    }
    if (LOOKED_UP.test(text)) words.push(text);
  }
  return words;
}

const codes = (text: string) => Array.from(text, (c) => c.charCodeAt(0));
const known = (text: string) => isOneToken(codes(text), 0, text.length);

describe('the one-token word filter', () => {
  it('is the one built from o200k_base', () => {
    const built = buildOneTokenFilter(oneTokenWords());
    // `S2SP_WRITE_ONE_TOKEN_WORDS=1` rewrites the shipped filter, after a change of its layout.
    if (process.env.S2SP_WRITE_ONE_TOKEN_WORDS === '1') {
      writeFileSync(
        new URL('./one-token-words-data.ts', import.meta.url),
        `/** The filter \`isOneToken\` reads (\`one-token-words.ts\`), built by \`one-token-words.test.ts\`: do not edit. */\nexport const ONE_TOKEN_WORDS_FILTER =\n  '${built}';\n`,
      );
    }
    expect(built).toBe(ONE_TOKEN_WORDS_FILTER);
  }, 60_000);

  it('knows every one-token word it looks up, and few others', () => {
    const words = oneTokenWords();
    expect(words.length).toBeGreaterThan(30_000);
    expect(words.filter((word) => !known(word))).toEqual([]);
    // Words o200k_base spells in several tokens: the filter knows them not (a few others, its
    // false passes, it does: below).
    const several = [' gusty', ' squall', ' reimbursements', 'Thermoplastics'];
    for (const word of several) {
      expect(tokenizer.encode(word).length).toBeGreaterThan(1);
      expect({ word, known: known(word) }).toEqual({ word, known: false });
    }
    let passed = 0;
    let tried = 0;
    for (const word of words) {
      const other = `${word}q`;
      if (tokenizer.encode(other).length === 1) continue;
      tried++;
      if (known(other)) passed++;
    }
    expect(passed / tried).toBeLessThan(ONE_TOKEN_FALSE_PASSES);
  }, 60_000);
});
