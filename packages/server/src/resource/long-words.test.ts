import { writeFileSync } from 'node:fs';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { buildLongWordFilter, isLongWord } from './long-words.js';
import { LONG_WORDS_FILTER } from './long-words-data.js';
import { LONG_WORD_LETTERS } from './token-estimate.js';

const tokenizer = new Tiktoken(o200k);

/** o200k_base's tokens of at least LONG_WORD_LETTERS ASCII letters, small or Capitalised. */
function longTokens(): string[] {
  const words: string[] = [];
  const shape = new RegExp(`^ ?[A-Z]?[a-z]{${LONG_WORD_LETTERS - 1},}$`);
  for (let rank = 0; rank < 200_000; rank++) {
    let text: string;
    try {
      text = tokenizer.decode([rank]);
    } catch {
      continue;
    }
    if (shape.test(text) && text.trim().length >= LONG_WORD_LETTERS) words.push(text);
  }
  return words;
}

const codes = (text: string) => Array.from(text, (c) => c.charCodeAt(0));
const known = (text: string) => isLongWord(codes(text), 0, text.length);

describe('the long-word filter', () => {
  it('is the one built from o200k_base', () => {
    const built = buildLongWordFilter(longTokens());
    // `S2SP_WRITE_LONG_WORDS=1` rewrites the shipped filter, after a change of its layout.
    if (process.env.S2SP_WRITE_LONG_WORDS === '1') {
      writeFileSync(
        new URL('./long-words-data.ts', import.meta.url),
        `/** The filter \`isLongWord\` reads (\`long-words.ts\`), built by \`long-words.test.ts\`: do not edit. */\nexport const LONG_WORDS_FILTER =\n  '${built}';\n`,
      );
    }
    expect(built).toBe(LONG_WORDS_FILTER);
  }, 60_000);

  it('knows every long one-token word, and few others', () => {
    const words = longTokens();
    expect(words.length).toBeGreaterThan(8000);
    expect(words.filter((word) => !known(word))).toEqual([]);
    // Long words o200k_base spells in several tokens: at most 5% pass.
    const several = [' reimbursements', ' kubernetesish', ' xylophonists', 'Thermoplastics'];
    for (const word of several) expect(tokenizer.encode(word).length).toBeGreaterThan(1);
    let passed = 0;
    let tried = 0;
    for (const word of words) {
      const other = `${word}q`;
      if (tokenizer.encode(other).length === 1) continue;
      tried++;
      if (known(other)) passed++;
    }
    expect(passed / tried).toBeLessThan(0.05);
  }, 60_000);
});
