/**
 * Real-server matrix: @executeautomation/database-server over a throwaway SQLite file.
 * `export_query` with `format: "csv"` answers with one text block of CSV: a header line, strings
 * in double quotes (`""` inside), numbers bare, `NULL` as an empty cell, a newline after each row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Row } from '@s2sp/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StdioUpstream } from '../../src/index.js';
import { stdioClient, upstreamBin } from '../support.js';
import { call, type Result, text } from '../table-calls.js';
import { checkRealServer } from './matrix.js';
import { ensureSqlite3Binding } from './sqlite3-binding.js';

const dir = mkdtempSync(join(tmpdir(), 's2sp-csv-'));
const upstream: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [
    upstreamBin('@executeautomation/database-server', 'dist/src/index.js'),
    join(dir, 'stations.db'),
  ],
};

// The first run compiles sqlite3 where no prebuilt binary can be downloaded: minutes, not seconds.
beforeAll(async () => {
  await ensureSqlite3Binding('@executeautomation/database-server');
}, 600_000);

beforeAll(async () => {
  await using seed = await stdioClient(upstream);
  const created = await call(seed.client, 'create_table', {
    query:
      'CREATE TABLE stations (id INTEGER PRIMARY KEY, name TEXT, state TEXT, elevation REAL, remark TEXT)',
  });
  expect(created.isError, text(created)).toBeFalsy();
  const values = Array.from({ length: 10 }, (_, i) => {
    const n = i + 1;
    const remark = n % 3 === 0 ? 'NULL' : `'gusty, "variable" ${n}'`;
    return `(${n}, 'Station ${n}', '${['TX', 'OK', 'KS'][n % 3]}', ${n * 101.5}, ${remark})`;
  });
  const inserted = await call(seed.client, 'write_query', {
    query: `INSERT INTO stations VALUES ${values.join(', ')}`,
  });
  expect(inserted.isError, text(inserted)).toBeFalsy();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** RFC 4180 CSV as printed: the header line names the columns; quoted cells may hold `,` `"`. */
function csvTable(result: Result): Row[] {
  const lines: string[][] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  const body = text(result);
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else if (c === '\n') {
      cells.push(cell);
      lines.push(cells);
      cells = [];
      cell = '';
    } else cell += c;
  }
  const [header = [], ...rows] = lines;
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
}

describe('@executeautomation/database-server through the proxy', () => {
  it('export_query (CSV): the plain call, the named columns, every row redeemed', async () => {
    await checkRealServer({
      fixture: 'csv-export_query',
      upstream,
      table: { name: 'export_query' },
      args: { query: 'SELECT * FROM stations ORDER BY id', format: 'csv' },
      abstract: ['name', 'state'],
      rows: csvTable,
      expectedRows: 10,
      values: 'text',
    });
  });
});
