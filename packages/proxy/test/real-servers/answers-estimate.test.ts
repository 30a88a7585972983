/**
 * The token estimate behind the savings receipt, on the real-server matrix's answers rebuilt from
 * the readings table in each database server's layout (`readingsAnswers`), without the servers:
 * the live matrix checks each receipt within `TOKEN_ESTIMATE_ERROR` of the plain answer, and these
 * answers are read low by a length-only estimate (` gusty`, ` squall` and ` overcast`, 2,115
 * times each, are two o200k tokens apiece): 7.1% low as indented JSON, 9.6% as CSV in a JSON
 * string, a hair inside that band. Held here to 7%, below both.
 */
import { estimateTokens } from '@s2sp/server';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { readingsAnswers } from './readings.js';

const o200k = new Tiktoken(o200kRanks);
/** How far the estimate may be from o200k_base on these answers (a fraction). */
const BOUND = 0.07;

describe('the token estimate on the matrix servers’ answers', () => {
  it('is within 7% of o200k_base on each database server’s layout of the readings table', () => {
    const answers = readingsAnswers();
    expect(answers.length).toBeGreaterThanOrEqual(7);
    for (const { name, text } of answers) {
      const error = estimateTokens(text) / o200k.encode(text).length - 1;
      expect({ name, within: Math.abs(error) <= BOUND }).toEqual({ name, within: true });
    }
    // o200k_base counts about 400 KB here: seconds on a busy machine.
  }, 60_000);
});
