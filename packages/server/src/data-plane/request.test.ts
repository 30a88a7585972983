import { S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { isJsonContentType, parseDataPlaneRequest, requestedRowIds } from './request.js';

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
    ['[1,2]', /is an array, not a JSON object/],
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
