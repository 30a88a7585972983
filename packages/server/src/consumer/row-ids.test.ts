import { thrownCode } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { MAX_HANDOFF_ROW_IDS, parseRowIds } from './row-ids.js';

describe('parseRowIds', () => {
  it('deduplicates in the order given, and reads absent as undefined', () => {
    expect(parseRowIds([4, 1, 4, 0])).toEqual([4, 1, 0]);
    expect(parseRowIds(undefined)).toBeUndefined();
  });

  it.each([
    [[]],
    [[-1]],
    [['1']],
    [{ 0: 1 }],
    [Array.from({ length: MAX_HANDOFF_ROW_IDS + 1 }, (_, i) => i)],
  ])('rejects %j with invalid_request', (value) => {
    expect(thrownCode(() => parseRowIds(value))).toBe('invalid_request');
  });
});
