import { describe, expect, it } from 'vitest';
import { parseJsonPointer } from '../json-pointer.js';
import { opts, REAL, text } from './__fixtures__/tool-results.js';
import { findTable } from './find-table.js';

// As @berthojoris/mcp-mysql-server 1.43.2 writes it: quoted where needed, null empty, a final LF.
const CSV = 'id,name,note\n1,Austin,"capital, ""live"""\n2,Boston,\n';
const ROWS = [
  { id: 1, name: 'Austin', note: 'capital, "live"' },
  { id: 2, name: 'Boston', note: '' },
];

describe('findTable: a text table inside a JSON string member', () => {
  it('finds CSV in the only string that holds a table (export_query_to_csv)', () => {
    expect(findTable(REAL.csvInJson(CSV, 2), opts)).toMatchObject({
      kind: 'table',
      pointer: '/csv',
      format: 'csv',
      rows: ROWS,
    });
  });

  it('reads the string a pointer names, in the format named or the one that reads it', () => {
    const csv = { maxTextLength: opts.maxTextLength, pointer: parseJsonPointer('/csv') };
    expect(findTable(REAL.csvInJson(CSV, 2), { ...csv, format: 'csv' })).toMatchObject({
      kind: 'table',
      rows: ROWS,
    });
    expect(findTable(REAL.csvInJson(CSV, 2), csv)).toMatchObject({ kind: 'table', rows: ROWS });
    expect(findTable(REAL.csvInJson(CSV, 2), { ...csv, format: 'tsv' })).toMatchObject({
      kind: 'table',
      format: 'tsv',
      rows: [{ 'id,name,note': '1,Austin,"capital, ""live"""' }, { 'id,name,note': '2,Boston,' }],
    });
  });

  it('refuses a named string that is not the format, and a pointer that is not there', () => {
    const at = { maxTextLength: opts.maxTextLength, pointer: parseJsonPointer('/csv') };
    expect(findTable(REAL.csvInJson('a,b\n1\n', 1), { ...at, format: 'csv' })).toMatchObject({
      kind: 'not-table',
      reason: /the string at "\/csv": as CSV, line 2/,
    });
    expect(
      findTable(REAL.csvInJson(CSV, 2), { ...at, pointer: ['rows'], format: 'csv' }),
    ).toMatchObject({ kind: 'not-table', reason: /no string at the configured pointer/ });
  });

  it('refuses several strings that hold tables, naming them', () => {
    expect(findTable(text({ a: CSV, b: CSV }), opts)).toMatchObject({
      kind: 'not-table',
      reason: /2 of its string members hold tables: "\/a" \(csv\), "\/b" \(csv\)/,
    });
  });

  it('leaves one-line strings and arrays of objects alone', () => {
    expect(findTable(text({ note: 'a,b', rows: [{ id: 1 }] }), opts)).toMatchObject({
      pointer: '/rows',
      format: 'json',
    });
  });
});
