/**
 * Real-server matrix: the MySQL servers, over one throwaway MariaDB server holding the readings
 * table (150 rows × 11 columns, `readings.ts`), each tool run configured and without a flag
 * (`matrix.ts`), in parallel.
 *
 * - @benborla29/mcp-server-mysql: `mysql_query` answers with two text blocks, the rows as an
 *   indented JSON array, then `Query execution time: N ms` — the one thing that differs between
 *   two identical calls.
 * - @berthojoris/mcp-mysql-server (started with the read-only permissions `list,read,utility`):
 *   `run_select_query` and `read_records` answer with the rows as an indented JSON array;
 *   `export_query_to_csv` with indented JSON `{csv, row_count}`, the table as CSV in the `csv`
 *   string (it prints a JSON column as `[object Object]`).
 */
import { type MariaDbTestServer, startMariaDb } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { StdioUpstream } from '../../src/index.js';
import { upstreamBin } from '../support.js';
import { type Result, text } from '../table-calls.js';
import { checkRealServer } from './matrix.js';
import { readingsCall, readingsSql } from './readings.js';
import { csvRows } from './text-tables.js';

let db: MariaDbTestServer;

beforeAll(async () => {
  db = await startMariaDb();
  await db.sql(readingsSql('mariadb'));
}, 120_000);
afterAll(() => db?.stop());

const jsonArray = (direct: Result) => JSON.parse(text(direct));

const clock = (result: Result): Result =>
  JSON.parse(JSON.stringify(result).replace(/execution time: [\d.]+ ms/g, 'execution time: N ms'));

const berthojoris = (): StdioUpstream => ({
  kind: 'stdio',
  command: process.execPath,
  args: [
    upstreamBin('@berthojoris/mcp-mysql-server', 'bin/mcp-mysql.js'),
    `mysql://${db.user}:${db.password}@${db.host}:${db.port}/${db.database}`,
    'list,read,utility',
  ],
});

describe.concurrent('MySQL servers on MariaDB through the proxy, configured and without a flag', () => {
  it('@benborla29/mcp-server-mysql mysql_query', async () => {
    await checkRealServer({
      server: '@benborla29/mcp-server-mysql',
      tool: 'mysql_query',
      upstream: {
        kind: 'stdio',
        command: process.execPath,
        args: [upstreamBin('@benborla29/mcp-server-mysql', 'dist/index.js')],
        env: {
          MYSQL_HOST: db.host,
          MYSQL_PORT: String(db.port),
          MYSQL_USER: db.user,
          MYSQL_PASS: db.password,
          MYSQL_DB: db.database,
        },
      },
      ...readingsCall((sql) => ({ sql })),
      rows: jsonArray,
      unstable: clock,
    });
  });

  it('@berthojoris/mcp-mysql-server run_select_query', async () => {
    await checkRealServer({
      server: '@berthojoris/mcp-mysql-server',
      tool: 'run_select_query',
      upstream: berthojoris(),
      ...readingsCall((query) => ({ query })),
      rows: jsonArray,
    });
  });

  it('@berthojoris/mcp-mysql-server read_records', async () => {
    await checkRealServer({
      server: '@berthojoris/mcp-mysql-server',
      tool: 'read_records',
      upstream: berthojoris(),
      ...readingsCall(() => ({})),
      // Not SQL: the table by name, in id order; the fixture its first page of two.
      args: { table_name: 'readings', sorting: { field: 'id', direction: 'asc' } },
      fixtureArgs: { table_name: 'readings', pagination: { page: 1, limit: 2 } },
      rows: jsonArray,
    });
  });

  it('@berthojoris/mcp-mysql-server export_query_to_csv (CSV inside a JSON string)', async () => {
    await checkRealServer({
      server: '@berthojoris/mcp-mysql-server',
      tool: 'export_query_to_csv',
      upstream: berthojoris(),
      ...readingsCall((query) => ({ query })),
      rows: (direct) => csvRows((JSON.parse(text(direct)) as { csv: string }).csv),
      values: 'text',
    });
  });
});
