import * as shared from '@s2sp/core/advice';
import { adviceProblems } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import * as advice from './advice.js';

describe("the proxy's advice", () => {
  it('ends every entry with a sentence the model can act on, and spells no sentence twice', () => {
    expect(
      adviceProblems(
        advice,
        { raiseAbstractBudget: [[1200]], askUpstreamForLess: [['maxUpstreamResultBytes']] },
        shared,
      ),
    ).toEqual([]);
  });
});
