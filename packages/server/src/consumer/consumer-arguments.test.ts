import { S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import {
  applyColumnMapping,
  mergeRows,
  parseConsumerArguments,
  pickRows,
} from './consumer-arguments.js';
import { MAX_HANDOFF_ROW_IDS } from './row-ids.js';

function rejection(fn: () => unknown): S2SPError {
  try {
    fn();
  } catch (error) {
    if (S2SPError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('parseConsumerArguments', () => {
  const abstract = [
    { _row_id: 2, event: 'Wind' },
    { _row_id: 0, event: 'Heat' },
  ];

  it('accepts JSON strings, as the seed declares the parameters', () => {
    const request = parseConsumerArguments({
      abstract_data: JSON.stringify(abstract),
      resource_url: ' http://x/s2sp/data/t ',
      body_data: '',
      column_mapping: '{"event":"kind"}',
    });
    expect(request).toEqual({
      abstractRows: abstract,
      resourceUrl: 'http://x/s2sp/data/t',
      bodyRows: undefined,
      columnMapping: { event: 'kind' },
    });
  });

  it('accepts already-parsed JSON values', () => {
    const request = parseConsumerArguments({
      abstract_data: abstract,
      body_data: [{ _row_id: 0, d: 1 }],
      column_mapping: {},
    });
    expect(request.bodyRows).toEqual([{ _row_id: 0, d: 1 }]);
    expect(request.resourceUrl).toBeUndefined();
    expect(request.columnMapping).toBeUndefined();
  });

  it('treats null and blank optional arguments as absent', () => {
    expect(
      parseConsumerArguments({
        abstract_data: '[]',
        resource_url: null,
        body_data: null,
        column_mapping: '  ',
      }),
    ).toEqual({
      abstractRows: [],
      resourceUrl: undefined,
      bodyRows: undefined,
      columnMapping: undefined,
    });
  });

  it.each([
    [{ abstract_data: undefined }, /abstract_data is required/],
    [{ abstract_data: '' }, /abstract_data is required/],
    [{ abstract_data: '[{"_row_id": 0}' }, /abstract_data is not valid JSON/],
    [
      { abstract_data: '{"_row_id": 0}' },
      /abstract_data must be a JSON array of rows, but it is an object/,
    ],
    [
      { abstract_data: '[{"_row_id": 0}, {"event": "x"}]' },
      /abstract_data\[1\] needs an integer "_row_id" but it has none/,
    ],
    [
      { abstract_data: '[{"_row_id": "3"}]' },
      /abstract_data\[0\] needs an integer "_row_id" but it has "3"/,
    ],
    [{ abstract_data: '[{"_row_id": 1.5}]' }, /abstract_data\[0\] needs an integer/],
    [{ abstract_data: '[{"_row_id": -1}]' }, /abstract_data\[0\] needs an integer/],
    [{ abstract_data: '[3]' }, /abstract_data\[0\] is a number, not a row object/],
    [{ abstract_data: '[]', resource_url: 5 }, /resource_url must be a string/],
    [{ abstract_data: '[]', body_data: '[{"x":1}]' }, /body_data\[0\] needs an integer "_row_id"/],
    [
      { abstract_data: '[]', resource_url: 'http://x/s2sp/data/t', body_data: '[]' },
      /either resource_url .* or body_data .*, not both/,
    ],
    [{ abstract_data: '[]', column_mapping: '["a"]' }, /column_mapping must be a JSON object/],
    [
      { abstract_data: '[]', column_mapping: '{"a": 1}' },
      /column_mapping\["a"\] must be a non-empty column name/,
    ],
    [
      { abstract_data: '[]', column_mapping: '{"_row_id": "id"}' },
      /cannot rename to or from "_row_id"/,
    ],
    [
      { abstract_data: '[]', column_mapping: '{"a": "_row_id"}' },
      /cannot rename to or from "_row_id"/,
    ],
    [
      { abstract_data: '[]', column_mapping: '{"a": "z", "b": "z"}' },
      /maps both "a" and "b" to "z"/,
    ],
  ])('rejects %j', (args, message) => {
    const error = rejection(() => parseConsumerArguments(args));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(message);
  });
});

describe('parseConsumerArguments: extensions', () => {
  const url = 'http://x/s2sp/data/t';

  it('accepts compact abstract_data', () => {
    const request = parseConsumerArguments({
      abstract_data: '[["_row_id","event"],[2,"Wind"],[0,null]]',
      resource_url: url,
    });
    expect(request.abstractRows).toEqual([{ _row_id: 2, event: 'Wind' }, { _row_id: 0 }]);
  });

  it('accepts row_ids with a resource_url instead of abstract_data, deduplicated', () => {
    const request = parseConsumerArguments({ row_ids: '[3, 1, 3]', resource_url: url });
    expect(request.abstractRows).toBeUndefined();
    expect(request.rowIds).toEqual([3, 1]);
  });

  it('accepts a filter with a resource_url', () => {
    const request = parseConsumerArguments({
      filter: { event: { contains: 'flood' } },
      resource_url: url,
    });
    expect(request.filter).toEqual({ event: { contains: 'flood' } });
  });

  it.each([
    [{ row_ids: [1] }, /behind a resource_url.*Pass the resource_url/],
    [{ row_ids: [1], abstract_data: '[]', resource_url: url }, /not both/],
    [{ row_ids: [], resource_url: url }, /empty/],
    [{ row_ids: [1.5], resource_url: url }, /row_ids\[0\]/],
    [{ row_ids: '{"a":1}', resource_url: url }, /JSON array/],
    [
      { row_ids: Array.from({ length: MAX_HANDOFF_ROW_IDS + 1 }, (_, i) => i), resource_url: url },
      /at most/,
    ],
    [{ filter: { event: 'x' }, body_data: '[]' }, /\(async mode\) only/],
    [{ filter: { event: { like: 'x' } }, resource_url: url }, /unknown operator/],
    [{}, /abstract_data is required/],
  ])('rejects %j', (args, message) => {
    const error = rejection(() => parseConsumerArguments(args));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(message);
  });
});

describe('pickRows', () => {
  it('returns the full rows in the order asked', () => {
    const full = [
      { _row_id: 0, a: 1 },
      { _row_id: 1, a: 2 },
      { _row_id: 2, a: 3 },
    ];
    expect(pickRows(full, [2, 0])).toEqual([
      { _row_id: 2, a: 3 },
      { _row_id: 0, a: 1 },
    ]);
    expect(rejection(() => pickRows(full, [7])).code).toBe('invalid_request');
  });
});

describe('mergeRows', () => {
  it('keeps the abstract order and lets abstract values win', () => {
    const merged = mergeRows(
      [
        { _row_id: 2, event: 'Wind (abstract)' },
        { _row_id: 0, event: 'Heat' },
      ],
      [
        { _row_id: 0, event: 'Heat', description: 'hot' },
        { _row_id: 2, event: 'Wind (body)', description: 'gusty' },
        { _row_id: 1, description: 'not asked for' },
      ],
    );
    expect(merged).toEqual([
      { _row_id: 2, event: 'Wind (abstract)', description: 'gusty' },
      { _row_id: 0, event: 'Heat', description: 'hot' },
    ]);
  });

  it('keeps duplicate abstract rows, each merged', () => {
    expect(mergeRows([{ _row_id: 1 }, { _row_id: 1 }], [{ _row_id: 1, a: 'x' }])).toEqual([
      { _row_id: 1, a: 'x' },
      { _row_id: 1, a: 'x' },
    ]);
  });

  it('refuses to merge when a body row is missing, naming the ids and the source', () => {
    const error = rejection(() =>
      mergeRows([{ _row_id: 0 }, { _row_id: 7 }, { _row_id: 9 }], [{ _row_id: 0 }], {
        source: 'The resource_url',
      }),
    );
    expect(error.message).toMatch(/The resource_url has no rows with _row_id 7, 9\./);
    expect(error.data).toEqual({ missingRowIds: [7, 9] });
  });

  it('does not let a "__proto__" body column change the merged row prototype', () => {
    const body = JSON.parse('[{"_row_id":0,"__proto__":{"x":1}}]');
    const [row] = mergeRows([{ _row_id: 0 }], body);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.keys(row!)).toEqual(['_row_id', '__proto__']);
  });
});

describe('applyColumnMapping', () => {
  it('renames mapped keys and keeps the rest, in place', () => {
    const [row] = applyColumnMapping([{ _row_id: 0, areaDesc: 'Travis', event: 'Heat' }], {
      areaDesc: 'area',
      missing: 'ignored',
    });
    expect(row).toEqual({ _row_id: 0, area: 'Travis', event: 'Heat' });
    expect(Object.keys(row!)).toEqual(['_row_id', 'area', 'event']);
  });

  it('swaps names without losing either value', () => {
    expect(applyColumnMapping([{ _row_id: 0, a: 1, b: 2 }], { a: 'b', b: 'a' })).toEqual([
      { _row_id: 0, b: 1, a: 2 },
    ]);
  });

  it('returns a copy when there is no mapping', () => {
    const rows = [{ _row_id: 0, a: 1 }];
    expect(applyColumnMapping(rows, undefined)).toEqual(rows);
  });

  it('refuses a rename that would overwrite another column', () => {
    for (const row of [
      { _row_id: 3, a: 1, b: 2 },
      { _row_id: 3, b: 2, a: 1 },
    ]) {
      expect(rejection(() => applyColumnMapping([row], { a: 'b' })).message).toMatch(
        /"b", which row 3 already has/,
      );
    }
  });
});

describe('parseConsumerArguments: wholeTable', () => {
  const url = 'http://x/s2sp/data/t';

  it('reads a resource_url or body_data alone as the whole table', () => {
    expect(parseConsumerArguments({ resource_url: url }, { wholeTable: true })).toEqual({
      abstractRows: undefined,
      rowIds: undefined,
      filter: undefined,
      resourceUrl: url,
      bodyRows: undefined,
      columnMapping: undefined,
    });
    expect(
      parseConsumerArguments({ body_data: '[{"_row_id":0}]' }, { wholeTable: true }).bodyRows,
    ).toEqual([{ _row_id: 0 }]);
  });

  it.each([
    [{ resource_url: url }, {}, /abstract_data is required/],
    [{}, { wholeTable: true }, /resource_url is required/],
    [{ resource_url: '  ' }, { wholeTable: true }, /resource_url is required/],
  ])('rejects %j with %j', (args, options, message) => {
    const error = rejection(() => parseConsumerArguments(args, options));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(message);
  });
});
