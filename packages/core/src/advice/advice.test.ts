import { describe, expect, it } from 'vitest';
import * as advice from './advice.js';
import * as guidance from './guidance.js';
import * as entry from './index.js';

// Verbs an entry's last sentence may start with: each names something the model (or the user
// it tells) can do. A new entry that ends with a fact, not an action, fails here.
const IMPERATIVES = new Set([
  'ask',
  'call',
  'keep',
  'map',
  'narrow',
  'pass',
  'rename',
  'retry',
  'return',
  'select',
  'send',
  'set',
  'tell',
  'try',
  'use',
]);

// Sample facts for each entry that takes some: a new function entry without a sample fails the
// coverage test below, so none escapes the instruction check.
const SAMPLE_FACTS: Record<string, readonly unknown[]> = {
  rowIdsOverTable: [12, 3],
  narrowTheAbstract: [true],
  raiseAbstractBudget: [1200],
  waitForExpiry: ['maxBytes'],
  askForFewerRows: ['maxBytes'],
  askUpstreamForLess: ['maxUpstreamResultBytes'],
  ifItPersists: ['Redis'],
  operatorMust: ['set publicUrl'],
};

function rendered(): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(advice)) {
    if (typeof value === 'string') out.push([name, value]);
    else if (typeof value === 'function') {
      const facts = SAMPLE_FACTS[name];
      if (!facts) throw new Error(`advice entry ${name} has no sample facts in SAMPLE_FACTS`);
      out.push([name, (value as (...args: unknown[]) => string)(...facts)]);
      // Both forms of an entry with a choice must end with an instruction.
      if (name === 'narrowTheAbstract')
        out.push([`${name}(false)`, advice.narrowTheAbstract(false)]);
    }
  }
  return out;
}

/** The first word of the last sentence, after a leading condition ("If this persists, tell …"). */
function lastInstructionVerb(text: string): string {
  const sentences = text.trim().split(/(?<=[.!?])\s+(?=[A-Z])/);
  const last = (sentences.at(-1) ?? '').replace(/^If [^,]*, /, '');
  return (last.match(/^[A-Za-z]+/)?.[0] ?? '').toLowerCase();
}

describe('the advice catalogue', () => {
  it('has sample facts for every entry that takes facts, and no stale sample', () => {
    const functions = Object.entries(advice)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name);
    expect(Object.keys(SAMPLE_FACTS).sort()).toEqual(functions.sort());
  });

  it('ends every entry with a sentence the model can act on', () => {
    for (const [name, text] of rendered()) {
      expect(text, name).toMatch(/[.]$/);
      expect(IMPERATIVES, `${name}: ${text}`).toContain(lastInstructionVerb(text));
    }
  });

  it('writes no sentence twice: an entry that repeats another composes it instead', () => {
    const seen = new Map<string, string>();
    for (const [name, value] of Object.entries(advice)) {
      if (typeof value !== 'string') continue;
      for (const sentence of value.split(/(?<=[.!?])\s+(?=[A-Z])/)) {
        const owner = seen.get(sentence);
        // A composed entry carries its part verbatim; only a second spelling is refused.
        if (owner === undefined) seen.set(sentence, name);
      }
    }
    const lowered = [...seen.keys()].map((s) => s.toLowerCase().replace(/\W+/g, ' ').trim());
    expect(new Set(lowered).size).toBe(lowered.length);
  });

  it('is exported whole from @s2sp/core/advice', () => {
    for (const name of [...Object.keys(advice), ...Object.keys(guidance)])
      expect(Object.keys(entry), name).toContain(name);
  });
});

describe('the guidance texts', () => {
  it('describe every S2SP parameter of resource and consumer tools', () => {
    expect(Object.keys(guidance.RESOURCE_PARAMETER_TEXT)).toEqual([
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
    ]);
    expect(Object.keys(guidance.CONSUMER_PARAMETER_TEXT)).toEqual([
      'abstract_data',
      'resource_url',
      'body_data',
      'column_mapping',
      'row_ids',
      'filter',
    ]);
  });

  it('name every filter operator in the instructions and the filter parameter', () => {
    for (const text of [
      guidance.s2spInstructions(600_000),
      guidance.RESOURCE_PARAMETER_TEXT.filter,
    ])
      for (const operator of ['eq', 'in', 'contains', 'gt', 'gte', 'lt', 'lte'])
        expect(text).toContain(operator);
  });

  it('word the lifetime the way the instructions say it', () => {
    expect(guidance.describeTtl(600_000)).toBe('10 minutes');
    expect(guidance.describeTtl(60_000)).toBe('1 minute');
    expect(guidance.describeTtl(20_000)).toBe('20 seconds');
    expect(guidance.resourceToolHowTo(60_000)).toContain('expires after 1 minute');
  });
});
