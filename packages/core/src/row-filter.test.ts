import { describe, expect, it } from 'vitest';
import { S2SPError } from './errors.js';
import {
  FILTER_LIMITS,
  filterRows,
  matchesFilter,
  parseRowFilter,
  ROW_FILTER_GRAMMAR,
  ROW_FILTER_OPERATORS,
} from './row-filter.js';

function rejection(fn: () => unknown): S2SPError {
  try {
    fn();
  } catch (error) {
    if (S2SPError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const rows = [
  { _row_id: 0, event: 'Flood Warning', severity: 'Severe', magnitude: 3, onset: '2026-11-22' },
  { _row_id: 1, event: 'Wind Advisory', severity: 'Moderate', magnitude: 7, onset: '2026-11-23' },
  { _row_id: 2, event: 'Flash Flood Watch', severity: 'Extreme', onset: '2026-11-24' },
  { _row_id: 3, event: 'Heat Advisory', severity: null, magnitude: '5' },
];

function ids(filter: unknown): number[] {
  const parsed = parseRowFilter(filter);
  return rows.filter((row) => !parsed || matchesFilter(row, parsed)).map((row) => row._row_id);
}

describe('parseRowFilter and matchesFilter', () => {
  it.each([
    [{ severity: 'severe' }, [0]],
    [{ severity: ['Severe', 'EXTREME'] }, [0, 2]],
    [{ severity: null }, [3]],
    [{ event: { contains: 'flood' } }, [0, 2]],
    [{ magnitude: { gte: 3, lt: 7 } }, [0]],
    [{ magnitude: { gt: 2 } }, [0, 1]],
    [{ onset: { gte: '2026-11-23' } }, [1, 2]],
    [{ event: { contains: 'flood' }, severity: { in: ['Extreme'] } }, [2]],
    [{ severity: { eq: 'Moderate' } }, [1]],
    ['{"severity":"Moderate"}', [1]],
    [{}, [0, 1, 2, 3]],
    [null, [0, 1, 2, 3]],
    ['', [0, 1, 2, 3]],
  ])('%j selects rows %j', (filter, expected) => {
    expect(ids(filter)).toEqual(expected);
  });

  it('matches array values by element for contains', () => {
    const filter = parseRowFilter({ zones: { contains: 'txz' } });
    expect(filter && matchesFilter({ zones: ['TXZ001', 'OKZ002'] }, filter)).toBe(true);
    expect(filter && matchesFilter({ zones: ['OKZ002'] }, filter)).toBe(false);
  });

  it('keeps a "__proto__" column as a column', () => {
    const filter = parseRowFilter('{"__proto__": "x"}');
    expect(filter && Object.keys(filter)).toEqual(['__proto__']);
    expect(filter && matchesFilter(JSON.parse('{"__proto__": "x"}'), filter)).toBe(true);
  });

  it.each([
    [[1, 2], /must be a JSON object/],
    ['{not json', /not valid JSON/],
    [{ a: { like: 'x%' } }, /unknown operator "like"/],
    [{ a: {} }, /empty object/],
    [{ a: [] }, /empty list/],
    [{ a: { in: 'x' } }, /must be a list/],
    [{ a: { contains: 3 } }, /contains must be a string/],
    [{ a: { gt: true } }, /must be a number or a string/],
    [{ a: { eq: { b: 1 } } }, /must be a string, number, boolean or null/],
    [{ a: 'x'.repeat(FILTER_LIMITS.textLength + 1) }, /longer than/],
    [{ a: Array.from({ length: FILTER_LIMITS.values + 1 }, (_, i) => i) }, /more than/],
    [
      Object.fromEntries(Array.from({ length: FILTER_LIMITS.columns + 1 }, (_, i) => [`c${i}`, 1])),
      /at most/,
    ],
  ])('rejects %j', (filter, message) => {
    const error = rejection(() => parseRowFilter(filter));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(message);
  });

  it('rejects columns that are not abstract, naming them', () => {
    const error = rejection(() => parseRowFilter({ areaDesc: 'x' }, ['event', 'severity']));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/"areaDesc"/);
    expect(parseRowFilter({ event: 'x' }, ['event'])).toEqual({ event: { eq: 'x' } });
  });
});

describe('filterRows: the one way a table is filtered, with its work bounded', () => {
  const VALUES: unknown[] = [
    'Severe',
    'severe',
    'SEVERE',
    'sévère',
    '1',
    1,
    0,
    -0,
    1.5,
    true,
    false,
  ];
  const CELLS: unknown[] = [
    ...VALUES,
    null,
    undefined,
    'other',
    2,
    ['Severe'],
    { a: 1 },
    '',
    'true',
  ];

  it('an in list and eq compare strings case-insensitively, an absent value as null, nothing else loosely', () => {
    const kept = (condition: Record<string, unknown>) => {
      const filter = parseRowFilter({ c: condition });
      if (!filter) throw new Error('no filter');
      return CELLS.filter((cell) => matchesFilter(cell === undefined ? {} : { c: cell }, filter));
    };
    expect(kept({ in: ['severe', 0] })).toEqual(['Severe', 'severe', 'SEVERE', 0, -0]);
    expect(kept({ eq: 'SÉVÈRE' })).toEqual(['sévère']);
    expect(kept({ in: [null] })).toEqual([null, undefined]);
    expect(kept({ eq: null })).toEqual([null, undefined]);
    expect(kept({ in: [true, '1'] })).toEqual(['1', true]);
    expect(kept({ eq: 1 })).toEqual([1]);
    expect(kept({ in: ['x'.repeat(500)] })).toEqual([]);
  });

  it('takes the issue’s case: 500 long in values on 100,000 rows (one condition a row)', () => {
    const values = Array.from({ length: 500 }, (_, i) => `${'v'.repeat(400)}${i}`);
    const table = Array.from({ length: 100_000 }, (_, i) => ({ _row_id: i, c: values[i % 1000] }));
    const filter = parseRowFilter({ c: values.map((v) => v.toUpperCase()) });
    const kept = filter ? filterRows(table, filter) : [];
    expect(kept).toHaveLength(50_000);
    expect(kept[1]?._row_id).toBe(1);
  });

  it('refuses rows × conditions over the bound before comparing any row', () => {
    // 20 columns, each with all 7 operators: 140 conditions a row.
    const spec = Object.fromEntries(
      Array.from({ length: FILTER_LIMITS.columns }, (_, i) => [
        `c${i}`,
        { eq: 1, in: [1, 2], contains: 'x', gt: 0, gte: 0, lt: 9, lte: 9 },
      ]),
    );
    const filter = parseRowFilter(spec);
    if (!filter) throw new Error('expected a filter');
    const most = Math.floor(FILTER_LIMITS.work / 140);
    const row = { c0: 1 };
    expect(filterRows(Array(most).fill(row), filter)).toEqual([]);
    let compared = 0;
    const counting = new Proxy(row, {
      has: () => {
        compared++;
        return true;
      },
      getOwnPropertyDescriptor: (target, key) => {
        compared++;
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
    });
    const error = rejection(() => filterRows(Array(most + 1).fill(counting), filter));
    expect(error.code).toBe('payload_too_large');
    expect(error.data).toEqual({ limit: FILTER_LIMITS.work });
    expect(error.message).toContain(`140 filter conditions × ${most + 1} rows`);
    expect(error.message).toMatch(/fewer filter conditions/);
    expect(compared).toBe(0);
  });
});

describe('ROW_FILTER_OPERATORS', () => {
  it('is the one list: the parser accepts every operator in it and the grammar names each one', () => {
    const operands = { value: 'Severe', values: ['Severe'], text: 'sev', bound: 'A' } as const;
    for (const [name, operator] of Object.entries(ROW_FILTER_OPERATORS)) {
      const filter = parseRowFilter({ severity: { [name]: operands[operator.operand] } });
      expect(filter).toEqual({ severity: { [name]: operands[operator.operand] } });
      expect(ROW_FILTER_GRAMMAR).toContain(`${name} (`);
    }
  });

  it('is AND across the operators of one column', () => {
    const filter = parseRowFilter({ severity: { eq: 'Severe', in: ['Extreme'] } });
    expect(filter && rows.filter((row) => matchesFilter(row, filter)).length).toBe(0);
  });
});
