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
    expect(split.abstract.slice()).toEqual([
      { _row_id: 0, severity: 'Moderate', event: 'Wind Advisory' },
      { _row_id: 1, event: 'Heat Advisory' },
    ]);
    expect(Object.keys(split.abstract.slice()[0]!)).toEqual(['_row_id', 'severity', 'event']);
    expect(split.bodyDomains).toEqual(['description', 'geocode']);
  });

  it('holds no abstract row: they are made from the table rows when read, a page at a time', () => {
    const table = prepareTable(rows);
    const split = splitColumns(table, ['event']);
    // The table's own rows, not a copy of each: nothing per row beside them.
    expect(split.abstract.source).toBe(table.rows);
    expect(split.abstract.length).toBe(2);
    expect(split.abstract.slice(1, 2)).toEqual([{ _row_id: 1, event: 'Heat Advisory' }]);
    expect(split.abstract.slice(1)).not.toBe(split.abstract.slice(1));
  });

  it('keeps the rows a filter matches, with their own row ids', () => {
    const many = Array.from({ length: 10 }, (_, i) => ({ n: i, kind: i % 3 === 0 ? 'a' : 'b' }));
    // A row given twice is its own row each time.
    const table = prepareTable([...many, many[0]!]);
    const split = splitColumns(table, ['kind'], { kind: { in: ['a'] } });
    expect(split.abstract.slice()).toEqual(
      [0, 3, 6, 9, 10].map((id) => ({ _row_id: id, kind: 'a' })),
    );
    expect(split.abstract.id(4)).toBe(10);
    expect(split.abstract.source).toHaveLength(5);
    expect(split.abstract.slice(2, 4).map((row) => row._row_id)).toEqual([6, 9]);
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
      expires_at: '2026-11-22T10:10:00Z',
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
