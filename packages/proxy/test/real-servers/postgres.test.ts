/**
 * Real-server matrix: @modelcontextprotocol/server-postgres over a throwaway PostgreSQL cluster.
 * `query` answers with the rows as an indented JSON array in one text block (numeric as strings,
 * timestamps as ISO strings, jsonb as nested JSON). Deeper checks of this server (errors, the
 * chart consumer, a stdio downstream) are in ../postgres.test.ts.
 */
import { type PostgresTestServer, startPostgres } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { StdioUpstream } from '../../src/index.js';
import { upstreamBin } from '../support.js';
import { text } from '../table-calls.js';
import { checkRealServer } from './matrix.js';

let pg: PostgresTestServer;
let upstream: StdioUpstream;

beforeAll(async () => {
  pg = await startPostgres();
  await pg.sql(`
    CREATE TABLE readings (id int PRIMARY KEY, station text NOT NULL, value numeric(6,2),
      ok boolean, taken timestamptz, extra jsonb);
    INSERT INTO readings
      SELECT i, 'Station ' || chr(64 + i), i * 1.25, i % 2 = 0,
             timestamptz '2026-01-01 00:00:00+00' + i * interval '1 hour',
             CASE WHEN i % 3 = 0 THEN NULL ELSE jsonb_build_object('tags', jsonb_build_array('a', i)) END
      FROM generate_series(1, 15) AS i;
  `);
  upstream = {
    kind: 'stdio',
    command: process.execPath,
    args: [upstreamBin('@modelcontextprotocol/server-postgres', 'dist/index.js'), pg.url],
  };
}, 120_000);
afterAll(() => pg?.stop());

describe('@modelcontextprotocol/server-postgres through the proxy', () => {
  it('query: the plain call, the named columns, every row redeemed', async () => {
    await checkRealServer({
      fixture: 'postgres-query',
      upstream,
      table: { name: 'query' },
      args: { sql: 'SELECT * FROM readings ORDER BY id' },
      abstract: ['station', 'ok'],
      rows: (direct) => JSON.parse(text(direct)),
      expectedRows: 15,
    });
  });
});
