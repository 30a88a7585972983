import { thrownCode } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { decodeCompactRows, encodeCompactRows, isCompactRows } from './compact-abstract.js';

describe('compact abstract rows', () => {
  const rows = [
    { _row_id: 0, event: 'Wind', severity: 'Minor' },
    { _row_id: 4, event: 'Heat' },
  ];

  it('encodes a header row and value rows, null for absent values', () => {
    expect(encodeCompactRows(rows, ['event', 'severity'])).toEqual([
      ['_row_id', 'event', 'severity'],
      [0, 'Wind', 'Minor'],
      [4, 'Heat', null],
    ]);
  });

  it('shares one value row between rows with equal values', () => {
    const same = [
      { _row_id: 0, event: 'Heat' },
      { _row_id: 1, event: 'Wind' },
      { _row_id: 2, event: 'Heat' },
    ];
    const compact = encodeCompactRows(same, ['event']);
    expect(compact).toEqual([
      ['_row_id', 'event'],
      [[0, 2], 'Heat'],
      [1, 'Wind'],
    ]);
    expect(decodeCompactRows('abstract_data', compact)).toEqual([same[0], same[2], same[1]]);
  });

  it('decodes back to row objects, leaving nulls out', () => {
    const compact = encodeCompactRows(rows, ['event', 'severity']);
    expect(isCompactRows(compact)).toBe(true);
    expect(decodeCompactRows('abstract_data', compact)).toEqual(rows);
  });

  it('tells row objects apart from compact rows', () => {
    expect(isCompactRows(rows)).toBe(false);
    expect(isCompactRows([])).toBe(false);
    expect(isCompactRows([['event']])).toBe(false);
  });

  it('rejects a row whose length differs from the header', () => {
    expect(thrownCode(() => decodeCompactRows('abstract_data', [['_row_id', 'event'], [0]]))).toBe(
      'invalid_request',
    );
  });
});
