/**
 * Real-server matrix: mcp-server-sqlite-npx (a Node port of the reference SQLite server, on the
 * `sqlite3` package) over a throwaway database file. `read_query` answers with the rows as an
 * indented JSON array in one text block.
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

const dir = mkdtempSync(join(tmpdir(), 's2sp-sqlite-'));
const upstream: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [upstreamBin('mcp-server-sqlite-npx', 'dist/index.js'), join(dir, 'alerts.db')],
};

// The first run compiles sqlite3 where no prebuilt binary can be downloaded: minutes, not seconds.
beforeAll(async () => {
  await ensureSqlite3Binding('mcp-server-sqlite-npx');
}, 600_000);

beforeAll(async () => {
  await using seed = await stdioClient(upstream);
  const created = await call(seed.client, 'create_table', {
    query:
      'CREATE TABLE alerts (id INTEGER PRIMARY KEY, event TEXT NOT NULL, severity TEXT, magnitude REAL, note TEXT)',
  });
  expect(created.isError, text(created)).toBeFalsy();
  const values = Array.from({ length: 20 }, (_, i) => {
    const n = i + 1;
    const event = ['Flood Watch', 'Heat Advisory', "Wind 'Advisory'"][n % 3];
    const note = n % 4 === 0 ? 'NULL' : `'Ünïcode note ${n}'`;
    return `(${n}, '${event?.replace(/'/g, "''")}', '${['Severe', 'Moderate', 'Minor'][n % 3]}', ${n * 0.5}, ${note})`;
  });
  const inserted = await call(seed.client, 'write_query', {
    query: `INSERT INTO alerts VALUES ${values.join(', ')}`,
  });
  expect(inserted.isError, text(inserted)).toBeFalsy();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mcp-server-sqlite-npx through the proxy', () => {
  it('read_query: configured and without a flag, every row redeemed', async () => {
    await checkRealServer({
      server: 'mcp-server-sqlite-npx',
      tool: 'read_query',
      upstream,
      args: { query: 'SELECT id, event, severity, magnitude, note FROM alerts ORDER BY id' },
      fixtureArgs: {
        query: 'SELECT id, event, severity, magnitude, note FROM alerts ORDER BY id LIMIT 3',
      },
      abstract: ['event', 'severity'],
      rows: (direct) => JSON.parse(text(direct)),
      expectedRows: 20,
    });
  });
});
