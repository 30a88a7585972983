/**
 * Real-server matrix: @executeautomation/database-server over a throwaway SQLite file.
 * `export_query` with `format: "csv"` answers with one text block of CSV: a header line, strings
 * in double quotes (`""` inside), numbers bare, `NULL` as an empty cell, a newline after each row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StdioUpstream } from '../../src/index.js';
import { stdioClient, upstreamBin } from '../support.js';
import { call, text } from '../table-calls.js';
import { checkRealServer } from './matrix.js';
import { ensureSqlite3Binding } from './sqlite3-binding.js';
import { csvRows } from './text-tables.js';

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

describe('@executeautomation/database-server through the proxy', () => {
  it('export_query (CSV): configured and without a flag, every row redeemed', async () => {
    await checkRealServer({
      server: '@executeautomation/database-server',
      tool: 'export_query',
      upstream,
      args: { query: 'SELECT * FROM stations ORDER BY id', format: 'csv' },
      abstract: ['name', 'state'],
      rows: (direct) => csvRows(text(direct)),
      expectedRows: 10,
      values: 'text',
    });
  });
});
