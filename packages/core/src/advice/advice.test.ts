import { adviceProblems } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import * as advice from './advice.js';
import * as guidance from './guidance.js';
import * as entry from './index.js';

// Sample facts for each entry that takes some: a new function entry without a sample fails, so
// none escapes the instruction check.
const SAMPLE_FACTS: Record<string, readonly (readonly unknown[])[]> = {
  rowIdsOverTable: [[12, 3]],
  waitForExpiry: [['maxBytes']],
  askForFewerRows: [['maxBytes']],
  ifItPersists: [['Redis']],
  operatorMust: [['set publicUrl']],
};

describe('the advice catalogue', () => {
  it('ends every entry with a sentence the model can act on, and spells no sentence twice', () => {
    expect(adviceProblems(advice, SAMPLE_FACTS)).toEqual([]);
  });

  it('exports only entries of the catalogue and its guidance', () => {
    const known = [...Object.keys(advice), ...Object.keys(guidance)];
    for (const name of Object.keys(entry)) expect(known, name).toContain(name);
  });

  it('refuses an entry that ends with a fact, a sample of no entry, and a second spelling', () => {
    const bad = {
      fact: 'The cache is full.',
      twice: 'try again in a few seconds.',
      render: (n: number) => `Row ${n} is missing.`,
    };
    expect(adviceProblems(bad, { render: [[1]], gone: [[]] }, advice)).toEqual([
      'gone: sample facts of no entry',
      'fact: its last sentence is not an instruction: The cache is full.',
      'render: its last sentence is not an instruction: Row 1 is missing.',
      'twice: spells "try again in a few seconds." a second way',
    ]);
  });
});
