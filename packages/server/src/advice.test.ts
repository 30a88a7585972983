import * as shared from '@s2sp/core/advice';
import { adviceProblems } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import * as advice from './advice.js';
import { consumerExtensionParameters, consumerParameters } from './consumer/consumer-parameters.js';
import * as guidance from './guidance.js';
import { resourceExtensionParameters, resourceParameters } from './resource/resource-tool.js';

describe("the server's advice", () => {
  it('ends every entry with a sentence the model can act on, and spells no sentence twice', () => {
    expect(adviceProblems(advice, { narrowTheAbstract: [[true], [false]] }, shared)).toEqual([]);
  });
});

describe('the guidance texts', () => {
  it('describe every S2SP parameter of resource and consumer tools, and nothing else', () => {
    expect(Object.keys(guidance.RESOURCE_PARAMETER_TEXT)).toEqual(
      Object.keys({ ...resourceParameters, ...resourceExtensionParameters }),
    );
    expect(Object.keys(guidance.CONSUMER_PARAMETER_TEXT)).toEqual(
      Object.keys({ ...consumerParameters, ...consumerExtensionParameters }),
    );
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
