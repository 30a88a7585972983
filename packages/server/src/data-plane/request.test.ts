import { S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import {
  isJsonContentType,
  parseDataPlaneRequest,
  parseIdempotencyKey,
  requestedRowIds,
  retryDigest,
} from './request.js';

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

describe('parseIdempotencyKey', () => {
  it.each([
    ['base64url of 16 bytes', 'AAECAwQFBgcICQoLDA0ODw'],
    ['32 hex digits', '0123456789abcdef0123456789ABCDEF'],
    ['a UUID', '123e4567-e89b-12d3-a456-426614174000'],
    ['128 characters', 'A'.repeat(128)],
  ])('accepts %s', (_label, key) => {
    expect(parseIdempotencyKey(key)).toBe(key);
  });

  it('is absent when the header is', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey(null)).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['21 characters', 'A'.repeat(21)],
    ['22 hex digits (88 bits)', '0123456789abcdef012345'],
    ['31 hex digits', '0'.repeat(31)],
    ['129 characters', 'A'.repeat(129)],
    ['padding', `${'A'.repeat(22)}=`],
    ['a space', `${'A'.repeat(11)} ${'A'.repeat(11)}`],
    ['non-ASCII', 'é'.repeat(22)],
  ])('refuses %s with invalid_request', (_label, key) => {
    let code: string | undefined;
    try {
      parseIdempotencyKey(key);
    } catch (error) {
      code = S2SPError.isInstance(error) ? error.code : 'other';
    }
    expect(code).toBe('invalid_request');
  });
});

describe('retryDigest', () => {
  it('differs with the key, the ids, the columns and the format, and only with them', async () => {
    const key = 'A'.repeat(22);
    const base = await retryDigest(key, [0, 2], { columns: ['a'] }, 'json');
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(await retryDigest(key, [0, 2], { columns: ['a'], row_ids: [2, 0] }, 'json')).toBe(base);
    for (const other of [
      await retryDigest('B'.repeat(22), [0, 2], { columns: ['a'] }, 'json'),
      await retryDigest(key, [0], { columns: ['a'] }, 'json'),
      await retryDigest(key, undefined, { columns: ['a'] }, 'json'),
      await retryDigest(key, [0, 2], {}, 'json'),
      await retryDigest(key, [0, 2], { columns: ['a'] }, 'ndjson'),
    ])
      expect(other).not.toBe(base);
    expect(await retryDigest(key, undefined, { columns: [] }, 'json')).toBe(
      await retryDigest(key, undefined, {}, 'json'),
    );
  });
});
