/**
 * Real-server matrix: @benborla29/mcp-server-mysql over a throwaway MariaDB server. `mysql_query`
 * answers with two text blocks: the rows as an indented JSON array, then
 * `Query execution time: N ms` — the one thing that differs between two identical calls.
 */
import { type MariaDbTestServer, startMariaDb } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { StdioUpstream } from '../../src/index.js';
import { upstreamBin } from '../support.js';
import { type Result, text } from '../table-calls.js';
import { checkRealServer } from './matrix.js';

let db: MariaDbTestServer;
let upstream: StdioUpstream;

beforeAll(async () => {
  db = await startMariaDb();
  await db.sql(`
    CREATE TABLE orders (id INT PRIMARY KEY, customer VARCHAR(40) NOT NULL, total DECIMAL(8,2),
      shipped BOOLEAN, placed DATETIME, note TEXT);
    INSERT INTO orders VALUES
      ${Array.from({ length: 12 }, (_, i) => {
        const n = i + 1;
        return `(${n}, 'Customer ${n} “Ltd”', ${n * 10.5}, ${n % 2}, '2026-02-${String(n).padStart(2, '0')} 10:00:00', ${n % 5 === 0 ? 'NULL' : `'note ${n}'`})`;
      }).join(',\n')};
  `);
  upstream = {
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
  };
}, 120_000);
afterAll(() => db?.stop());

const clock = (result: Result): Result =>
  JSON.parse(JSON.stringify(result).replace(/execution time: [\d.]+ ms/g, 'execution time: N ms'));

describe('@benborla29/mcp-server-mysql through the proxy', () => {
  it('mysql_query: the plain call, the named columns, every row redeemed', async () => {
    await checkRealServer({
      fixture: 'mysql-mysql_query',
      upstream,
      table: { name: 'mysql_query' },
      args: { sql: 'SELECT * FROM orders ORDER BY id' },
      abstract: ['customer', 'shipped'],
      rows: (direct) => JSON.parse(text(direct)),
      unstable: clock,
      expectedRows: 12,
    });
  });
});
