import { S2SPResultSchema } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { bodyRows, splitColumns } from './column-split.js';
import {
  buildAsyncResult,
  buildSyncResult,
  serializePlainResult,
  serializeS2SPResult,
} from './s2sp-result.js';
import { prepareTable, serializeTable } from './table.js';

const isS2SPResult = (value: unknown) => S2SPResultSchema.safeParse(value).success;

const rows = [
  { event: 'Wind Advisory', severity: 'Moderate', description: 'North winds 25 to 35 mph.' },
  {
    event: 'Heat Advisory',
    description: 'Heat index values up to 110.',
    geocode: { UGC: ['TXZ192'] },
  },
];

describe('splitColumns', () => {
  it('keeps _row_id first then the abstract columns present in each row, in request order', () => {
    const split = splitColumns(prepareTable(rows), ['severity', 'event']);
    expect(split.abstract).toEqual([
      { _row_id: 0, severity: 'Moderate', event: 'Wind Advisory' },
      { _row_id: 1, event: 'Heat Advisory' },
    ]);
    expect(Object.keys(split.abstract[0]!)).toEqual(['_row_id', 'severity', 'event']);
    expect(split.bodyDomains).toEqual(['description', 'geocode']);
  });

  it('gives sync body rows with _row_id and body columns only', () => {
    const table = prepareTable(rows);
    const split = splitColumns(table, ['event']);
    expect(bodyRows(table, split.bodyDomains)).toEqual([
      { _row_id: 0, severity: 'Moderate', description: 'North winds 25 to 35 mph.' },
      { _row_id: 1, description: 'Heat index values up to 110.', geocode: { UGC: ['TXZ192'] } },
    ]);
  });

  it('serialises full rows once, with _row_id first, for the cache', () => {
    const stored = serializeTable(prepareTable(rows));
    expect(stored.columns).toEqual(['event', 'severity', 'description', 'geocode']);
    expect(stored.rows[1]).toBe(
      '{"_row_id":1,"event":"Heat Advisory","description":"Heat index values up to 110.","geocode":{"UGC":["TXZ192"]}}',
    );
  });
});

describe('resource results', () => {
  const table = prepareTable(rows);
  const split = splitColumns(table, ['event']);

  it('builds the async object in protocol field order, without body', () => {
    const result = buildAsyncResult(split, {
      resourceUrl: 'http://127.0.0.1:1/s2sp/data/x',
      expiresAt: new Date('2026-11-22T10:10:00.000Z'),
    });
    expect(Object.keys(result)).toEqual([
      'total_rows',
      'abstract_domains',
      'body_domains',
      'abstract',
      'resource_url',
      'expires_at',
    ]);
    expect(result).toMatchObject({
      total_rows: 2,
      abstract_domains: ['event'],
      expires_at: '2026-11-22T10:10:00.000Z',
    });
    expect(serializeS2SPResult(result)).not.toMatch(/\n| {2}/);
  });

  it('builds the sync object with body and no resource_url', () => {
    const result = buildSyncResult(split, bodyRows(table, split.bodyDomains));
    expect(Object.keys(result)).toEqual([
      'total_rows',
      'abstract_domains',
      'body_domains',
      'abstract',
      'body',
    ]);
    expect(result.body).toHaveLength(2);
  });

  it('serialises a plain result as the compact JSON array of the original rows', () => {
    expect(JSON.parse(serializePlainResult(table))).toEqual(rows);
    expect(serializePlainResult(table)).not.toContain('_row_id');
  });

  it('recognises S2SP objects, including the Python reference shape with extra fields', () => {
    const reference = {
      total_rows: 1,
      columns: ['a', 'b'],
      abstract_domains: ['a'],
      body_domains: ['b'],
      resource_url: 'http://x/s2sp/data/t',
      abstract: [{ a: 1, _row_id: 0 }],
    };
    expect(isS2SPResult(reference)).toBe(true);
    expect(S2SPResultSchema.parse(reference).columns).toEqual(['a', 'b']);
    expect(isS2SPResult({ abstract: [], total_rows: 0 })).toBe(false);
    expect(isS2SPResult([{ a: 1 }])).toBe(false);
    expect(
      isS2SPResult({ total_rows: 1, abstract_domains: [], body_domains: [], abstract: [{ a: 1 }] }),
    ).toBe(false);
  });
});
