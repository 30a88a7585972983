import { describe, expect, it } from 'vitest';
import type { TakenRows } from './body-store.js';
import {
  concatBytes,
  DataPlaneResponseSchema,
  isJsonContentType,
  parseDataPlaneRequest,
  renderDataPlaneResponse as renderChunks,
  requestedRowIds,
} from './data-plane.js';
import { S2SPError } from './errors.js';

function rejection(text: string): S2SPError {
  try {
    parseDataPlaneRequest(text);
  } catch (error) {
    if (S2SPError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected ${text} to be rejected`);
}

describe('parseDataPlaneRequest', () => {
  it.each([
    ['', {}],
    ['  \n', {}],
    ['{}', {}],
    ['{"row_ids":[0,2,5]}', { row_ids: [0, 2, 5] }],
    ['{"columns":["description"]}', { columns: ['description'] }],
    ['{"row_ids":null,"columns":null}', { row_ids: null, columns: null }],
    ['{"row_ids":[],"extra":"ignored"}', { row_ids: [] }],
  ])('accepts %j', (text, expected) => {
    expect(parseDataPlaneRequest(text)).toEqual(expected);
  });

  it.each([
    ['not json', /not valid JSON/],
    ['[1,2]', /is an array; it must be a JSON object/],
    ['null', /is null/],
    ['"x"', /is a string/],
    ['{"row_ids":"0,1"}', /row_ids: row_ids must be an array of non-negative integers/],
    ['{"row_ids":[1,-1]}', /row_ids\[1\]:/],
    ['{"row_ids":[1.5]}', /row_ids\[0\]:/],
    ['{"row_ids":["1"]}', /row_ids\[0\]:/],
    ['{"row_ids":[1e300]}', /row_ids\[0\]:/],
    ['{"columns":"description"}', /columns: columns must be an array/],
    ['{"columns":[1]}', /columns\[0\]:/],
    ['\u00a0', /not valid JSON/],
    ['\u2028', /not valid JSON/],
    ['\ufeff', /not valid JSON/],
    ['\v', /not valid JSON/],
  ])('rejects %j as invalid_request', (text, message) => {
    const error = rejection(text);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(message);
  });

  it('counts JSON whitespace (space, tab, CR, LF) only as an empty body', () => {
    expect(parseDataPlaneRequest(' \t\r\n')).toEqual({});
    expect(rejection(' \u00a0 ').code).toBe('invalid_request');
  });
});

describe('isJsonContentType', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;Charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json;',
  ])('accepts %j', (type) => {
    expect(isJsonContentType(type)).toBe(true);
  });

  it.each([
    undefined,
    null,
    '',
    'text/plain',
    'text/plain; charset=utf-8',
    'application/evil+json',
    'application/jsonx',
    'application/json; charset=utf-16',
    'application/json; charset=iso-8859-1',
    'application/json; x=1',
    'application/json; charset=utf-8; x=1',
    'multipart/form-data; boundary=x',
  ])('rejects %j', (type) => {
    expect(isJsonContentType(type)).toBe(false);
  });
});

describe('requestedRowIds', () => {
  it('is undefined for all rows and sorted and unique otherwise', () => {
    expect(requestedRowIds({})).toBeUndefined();
    expect(requestedRowIds({ row_ids: [] })).toBeUndefined();
    expect(requestedRowIds({ row_ids: null })).toBeUndefined();
    expect(requestedRowIds({ row_ids: [5, 0, 5, 2] })).toEqual([0, 2, 5]);
  });
});

const renderDataPlaneResponse = (...args: Parameters<typeof renderChunks>) =>
  new TextDecoder().decode(concatBytes(renderChunks(...args)));

describe('renderDataPlaneResponse', () => {
  const rows = [
    '{"_row_id":0,"event":"Wind","description":"gusts"}',
    '{"_row_id":1,"event":"Heat"}',
    '{"_row_id":2,"event":"Flood","description":"rain"}',
  ];
  const all: TakenRows = { columns: ['event', 'description'], tableRows: 3, rows };

  it('returns all rows and all columns when nothing is selected', () => {
    const text = renderDataPlaneResponse(all, {}, undefined);
    expect(JSON.parse(text)).toEqual({
      body: rows.map((r) => JSON.parse(r)),
      total_rows: 3,
      columns_returned: ['_row_id', 'event', 'description'],
    });
  });

  it('lists ids the table lacks in missing_row_ids and counts only returned rows', () => {
    const ids = [1, 7, 9];
    const taken: TakenRows = { ...all, rows: [rows[1], undefined, undefined] };
    const response = DataPlaneResponseSchema.parse(
      JSON.parse(renderDataPlaneResponse(taken, { row_ids: ids }, ids)),
    );
    expect(response.body).toEqual([{ _row_id: 1, event: 'Heat' }]);
    expect(response.total_rows).toBe(1);
    expect(response.missing_row_ids).toEqual([7, 9]);
  });

  it('projects requested columns, always keeps _row_id and skips unknown names', () => {
    const text = renderDataPlaneResponse(
      all,
      { columns: ['description', 'nope', 'description', '_row_id'] },
      undefined,
    );
    expect(JSON.parse(text)).toEqual({
      body: [
        { _row_id: 0, description: 'gusts' },
        { _row_id: 1 },
        { _row_id: 2, description: 'rain' },
      ],
      total_rows: 3,
      columns_returned: ['_row_id', 'description'],
    });
  });

  it("sends a store's joined bytes as they are, without copying them", () => {
    const joined = new TextEncoder().encode(rows.join(','));
    const chunks = renderChunks(
      { columns: ['event', 'description'], tableRows: 3, joined },
      {},
      undefined,
    );
    expect(chunks).toHaveLength(3);
    expect(chunks[1]).toBe(joined);
    expect(JSON.parse(new TextDecoder().decode(concatBytes(chunks)))).toEqual({
      body: rows.map((r) => JSON.parse(r)),
      total_rows: 3,
      columns_returned: ['_row_id', 'event', 'description'],
    });
  });

  it("sends a store's chunks as they are, split anywhere, even inside a character", () => {
    const joined = new TextEncoder().encode(`${rows.join(',')},{"_row_id":3,"event":"ß"}`);
    const pieces = [
      joined.subarray(0, 7),
      joined.subarray(7, joined.length - 3),
      new Uint8Array(0),
      joined.subarray(joined.length - 3),
    ];
    const chunks = renderChunks(
      { columns: ['event', 'description'], tableRows: 4, chunks: pieces },
      {},
      undefined,
    );
    expect(chunks).toHaveLength(5);
    expect(chunks[1]).toBe(pieces[0]);
    const parsed = JSON.parse(new TextDecoder().decode(concatBytes(chunks)));
    expect(parsed.total_rows).toBe(4);
    expect(parsed.body[3]).toEqual({ _row_id: 3, event: 'ß' });
    // With columns, the chunks are parsed as one array.
    const projected = JSON.parse(
      renderDataPlaneResponse(
        { columns: ['event', 'description'], tableRows: 4, chunks: pieces },
        { columns: ['event'] },
        undefined,
      ),
    );
    expect(projected.body.map((r: { event: string }) => r.event)).toEqual([
      'Wind',
      'Heat',
      'Flood',
      'ß',
    ]);
  });

  it('projects columns of all rows when the store gave them only joined', () => {
    const joined = new TextEncoder().encode(rows.join(','));
    const text = renderDataPlaneResponse(
      { columns: ['event', 'description'], tableRows: 3, joined },
      { columns: ['event'] },
      undefined,
    );
    expect(JSON.parse(text)).toEqual({
      body: [
        { _row_id: 0, event: 'Wind' },
        { _row_id: 1, event: 'Heat' },
        { _row_id: 2, event: 'Flood' },
      ],
      total_rows: 3,
      columns_returned: ['_row_id', 'event'],
    });
  });

  it('accepts rows as UTF-8 bytes, and projects them too', () => {
    const bytes = rows.map((r) => new TextEncoder().encode(r));
    const taken: TakenRows = {
      columns: ['event', 'description'],
      tableRows: 3,
      rows: [bytes[2], undefined],
    };
    expect(JSON.parse(renderDataPlaneResponse(taken, { row_ids: [2, 5] }, [2, 5]))).toMatchObject({
      body: [{ _row_id: 2, event: 'Flood', description: 'rain' }],
      missing_row_ids: [5],
    });
    expect(
      JSON.parse(renderDataPlaneResponse(taken, { row_ids: [2, 5], columns: ['event'] }, [2, 5]))
        .body,
    ).toEqual([{ _row_id: 2, event: 'Flood' }]);
  });

  it('renders an empty table', () => {
    expect(
      JSON.parse(renderDataPlaneResponse({ columns: [], tableRows: 0, rows: [] }, {}, undefined)),
    ).toEqual({ body: [], total_rows: 0, columns_returned: ['_row_id'] });
  });

  it('reads a Python reference response, which has no columns_returned', () => {
    expect(
      DataPlaneResponseSchema.parse({ body: [{ a: 1, _row_id: 0 }], total_rows: 1 }).body,
    ).toHaveLength(1);
    expect(DataPlaneResponseSchema.safeParse({ body: [{ a: 1 }] }).success).toBe(false);
  });
});
