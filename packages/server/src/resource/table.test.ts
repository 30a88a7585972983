import { encodeRows } from '@s2sp/core/store';
import { codeOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { prepareTable, projectRow, serializeRow, serializeTable } from './table.js';

describe('prepareTable', () => {
  it('collects the column union in first-seen order across rows', () => {
    const table = prepareTable([{ b: 1, a: 2 }, { c: 3, a: 4 }, {}, { d: null }]);
    expect(table.columns).toEqual(['b', 'a', 'c', 'd']);
    expect(table.rows).toHaveLength(4);
  });

  it('does not count keys whose value is undefined (JSON drops them)', () => {
    expect(prepareTable([{ a: undefined, b: 1 }]).columns).toEqual(['b']);
  });

  it('accepts an empty table', () => {
    expect(prepareTable([])).toEqual({ rows: [], columns: [] });
  });

  it('rejects a row that already carries _row_id, naming the row and what to do', () => {
    expect(codeOf(() => prepareTable([{ a: 1 }, { _row_id: 9, a: 2 }]))).toBe('invalid_rows');
    expect(() => prepareTable([{ a: 1 }, { _row_id: 9 }])).toThrow(
      /Row 1 .*"_row_id".*Rename.*reserved/,
    );
  });

  it('rejects non-arrays and non-object rows with invalid_rows', () => {
    expect(codeOf(() => prepareTable({ rows: [] }))).toBe('invalid_rows');
    expect(codeOf(() => prepareTable('[]'))).toBe('invalid_rows');
    expect(codeOf(() => prepareTable(null))).toBe('invalid_rows');
    expect(codeOf(() => prepareTable([{ a: 1 }, [1, 2]]))).toBe('invalid_rows');
    expect(codeOf(() => prepareTable([null]))).toBe('invalid_rows');
    expect(codeOf(() => prepareTable([new Date()]))).toBe('invalid_rows');
    expect(codeOf(() => prepareTable([1]))).toBe('invalid_rows');
  });
});

describe('serializeRow', () => {
  it('puts _row_id first and keeps every other member as JSON', () => {
    expect(serializeRow({ a: 'x', n: { b: [1, null] } }, 4)).toBe(
      '{"_row_id":4,"a":"x","n":{"b":[1,null]}}',
    );
    expect(JSON.parse(serializeRow({ a: 'é😀' }, 0))).toEqual({ _row_id: 0, a: 'é😀' });
  });

  it('serialises an empty row as just its id', () => {
    expect(serializeRow({}, 7)).toBe('{"_row_id":7}');
  });

  it('reports values JSON cannot hold as invalid_rows, naming the row', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(codeOf(() => serializeRow({ big: 10n }, 3))).toBe('invalid_rows');
    expect(() => serializeRow(cyclic, 2)).toThrow(/Row 2 .*cannot be serialised/);
  });
});

describe('projectRow', () => {
  it('starts with _row_id and keeps only present columns, in the order asked', () => {
    const row = projectRow({ a: 1, b: 2, c: undefined }, 5, ['c', 'b', 'zz']);
    expect(row).toEqual({ _row_id: 5, b: 2 });
    expect(Object.keys(row)).toEqual(['_row_id', 'b']);
  });

  it('copies a "__proto__" column as data instead of changing the prototype', () => {
    const source = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<
      string,
      unknown
    >;
    const row = projectRow(source, 0, ['__proto__', 'a']);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.keys(row)).toEqual(['_row_id', '__proto__', 'a']);
    expect(JSON.stringify(row)).toBe('{"_row_id":0,"__proto__":{"polluted":true},"a":1}');
  });
});

describe("serializeTable with the rows' texts", () => {
  it('reuses the texts rows were parsed from, and ignores texts that do not fit', () => {
    const texts = ['{"a":1, "b":"x"}', '{ }', '{"a":2}'];
    const rows = texts.map((t) => JSON.parse(t));
    const stored = serializeTable(prepareTable(rows), { texts });
    expect(stored.rows).toEqual([
      '{"_row_id":0,"a":1, "b":"x"}',
      '{"_row_id":1}',
      '{"_row_id":2,"a":2}',
    ]);
    expect(stored.rows.map((r) => JSON.parse(r))).toEqual(
      rows.map((row, i) => ({ _row_id: i, ...row })),
    );
    // A line break (NDJSON needs one row a line) or a wrong count: stringified as usual.
    const pretty = [{ a: 1 }];
    expect(serializeTable(prepareTable(pretty), { texts: ['{\n  "a": 1\n}'] }).rows).toEqual([
      '{"_row_id":0,"a":1}',
    ]);
    const short = [{ a: 1 }, { a: 2 }];
    expect(serializeTable(prepareTable(short), { texts: ['{"a":9}'] }).rows).toEqual([
      '{"_row_id":0,"a":1}',
      '{"_row_id":1,"a":2}',
    ]);
  });

  it('stores from the texts rows that hold only some of their values, encoded as the joined rows', () => {
    const texts = ['{"a":1,"b":"é"}', '{}', '{"a":2,"b":"y"}'];
    const partial = [{ a: 1, b: null }, {}, { a: 2 }];
    const stored = serializeTable(prepareTable(partial), { texts });
    expect(stored.rows).toEqual([
      '{"_row_id":0,"a":1,"b":"é"}',
      '{"_row_id":1}',
      '{"_row_id":2,"a":2,"b":"y"}',
    ]);
    // Encoded from prefix and text apart, it is byte for byte the encoding of the joined rows.
    const flat = stored.rows.map((row) => Buffer.from(row).toString());
    expect(encodeRows(stored)).toEqual(encodeRows(flat));
    expect(new TextDecoder().decode(encodeRows(stored).joined)).toBe(stored.rows.join(','));
  });
});
