/**
 * Tables where real servers put them, through a real proxy (issue 54, rows 3, 6 and 7): rows one
 * level down in a declared `outputSchema` (`@neverinfamous/mysql-mcp`), a row count beside a
 * table's description that is not the description's (duckdb `describe_table`), and prose around
 * a JSON array or in place of rows (`@pollinations/mcp-server-sqlite`). The fixture upstream
 * (fixtures/nested-server.mjs) answers with each server's shapes.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { callToolPlainly } from '../src/advice.js';
import { upstreamWordsText } from '../src/tables/detect/upstream-note.js';
import type { StdioUpstream } from '../src/upstream/upstream-target.js';
import { httpClient, startProxy, stdioClient } from './support.js';
import { call, code, listed, type Result, s2sp, text } from './table-calls.js';

const NESTED: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [fileURLToPath(new URL('./fixtures/nested-server.mjs', import.meta.url))],
};

async function redeem(url: string | undefined): Promise<unknown[]> {
  const response = await fetch(url ?? '', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { body: unknown[] }).body;
}
const withIds = (rows: readonly unknown[]) =>
  rows.map((row, i) => ({ _row_id: i, ...(row as object) }));
const after = (result: Result) => result.content.slice(1).map((block) => block.text);

describe('a table one level down in a declared outputSchema (@neverinfamous/mysql-mcp 5.1.1)', () => {
  it('offers S2SP from the first listing and splits /data/rows, passing on its next cursor', async () => {
    await using running = await startProxy({ upstream: NESTED });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(NESTED);
    const tool = await listed(agent.client, 'mysql_read_query');
    expect(tool?.inputSchema.properties).toHaveProperty('abstract_domains');
    // The tool's own cursor is forwarded; the proxy's is listed under another name.
    expect(tool?.inputSchema.properties).toHaveProperty('s2sp_cursor');

    const args = { query: 'SELECT * FROM cities', count: 120 };
    const plain = await call(direct.client, 'mysql_read_query', args);
    const data = (plain.structuredContent as { data: { rows: unknown[]; nextCursor: string } })
      .data;
    expect(data.rows).toHaveLength(50);
    // A plain call goes through as it came.
    expect(await call(agent.client, 'mysql_read_query', args)).toEqual(plain);

    const result = await call(agent.client, 'mysql_read_query', {
      ...args,
      abstract_domains: 'city,state',
    });
    const split = s2sp(result);
    expect(split.total_rows).toBe(50);
    expect(split.abstract).toEqual(
      data.rows.map((row, i) => ({
        _row_id: i,
        city: (row as { city: string }).city,
        state: (row as { state: string }).state,
      })),
    );
    expect(await redeem(split.resource_url)).toEqual(withIds(data.rows));
    // The rest of structuredContent as for a JSON text block: its next cursor says the answer is
    // partial; the text block repeating it is left out and counted.
    const [note, leftOut] = after(result);
    expect(note).toContain(`"nextCursor": ${JSON.stringify(data.nextCursor)}`);
    expect(leftOut).toContain(callToolPlainly);
    expect(after(result)).toHaveLength(2);

    // The upstream's own cursor still pages the upstream.
    const next = s2sp(
      await call(agent.client, 'mysql_read_query', {
        ...args,
        cursor: data.nextCursor,
        abstract_domains: 'id',
      }),
    );
    expect(next.abstract[0]).toEqual({ _row_id: 0, id: 51 });
  });

  it('asks for the array where several are declared, listing them, and splits the one named', async () => {
    await using running = await startProxy({ upstream: NESTED });
    await using agent = await httpClient(running.listener.mcpUrl);
    const args = { table: 'cities' };
    const ambiguous = await call(agent.client, 'mysql_describe_table', {
      ...args,
      abstract_domains: 'name',
    });
    expect(code(ambiguous)).toBe('invalid_rows');
    expect(text(ambiguous)).toContain('"/data/columns" (4 rows), "/data/indexes" (1 rows)');
    // The tool's own `table` parameter is the table name; the proxy's is s2sp_table.
    const split = s2sp(
      await call(agent.client, 'mysql_describe_table', {
        ...args,
        abstract_domains: 'name',
        s2sp_table: 'columns',
      }),
    );
    expect(split.abstract.map((row) => row.name)).toEqual(['id', 'city', 'state', 'population']);
  });

  it('refuses abstract_domains for a tool it does not offer S2SP, instead of ignoring it', async () => {
    await using running = await startProxy({ upstream: NESTED });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(NESTED);
    for (const name of ['mysql_write_query', 'mysql_server_status']) {
      expect((await listed(agent.client, name))?.inputSchema.properties).not.toHaveProperty(
        'abstract_domains',
      );
      const refused = await call(agent.client, name, { query: 'x', abstract_domains: 'id' });
      expect(code(refused), name).toBe('invalid_request');
      expect(text(refused)).toContain(callToolPlainly);
      expect(await call(agent.client, name, { query: 'x' })).toEqual(
        await call(direct.client, name, { query: 'x' }),
      );
    }
  });
});

describe('a count beside a table that counts something else (duckdb describe_table)', () => {
  it('says nothing of a partial answer for 6 columns beside a 100-row table', async () => {
    await using running = await startProxy({ upstream: NESTED });
    await using agent = await httpClient(running.listener.mcpUrl);
    const result = await call(agent.client, 'describe_table', {
      table_name: 'cities',
      abstract_domains: 'column_name',
    });
    expect(s2sp(result).total_rows).toBe(6);
    expect(result.content).toHaveLength(1);
  });
});

describe('prose around the rows and in place of them (@pollinations/mcp-server-sqlite 0.6.6)', () => {
  it('splits around the array, keeping the prose before and after as the upstream’s words', async () => {
    await using running = await startProxy({ upstream: NESTED });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(NESTED);
    // Before the tool is known to answer with tables, prose alone is no table.
    const unknown = await call(agent.client, 'execute_query_with_url', {
      count: 0,
      abstract_domains: 'city',
    });
    expect(code(unknown)).toBe('invalid_rows');

    const args = { query: 'SELECT * FROM cities', count: 7 };
    const plain = text(await call(direct.client, 'execute_query_with_url', args));
    const result = await call(agent.client, 'execute_query_with_url', {
      ...args,
      abstract_domains: 'city',
    });
    const split = s2sp(result);
    const preview = JSON.parse(plain.slice(plain.indexOf('['), plain.indexOf(']') + 1));
    expect(split.total_rows).toBe(5);
    expect(await redeem(split.resource_url)).toEqual(withIds(preview));
    const [head, tail] = plain.split(JSON.stringify(preview, null, 2)).map((part) => part.trim());
    expect(after(result)).toEqual([upstreamWordsText({ before: head ?? '', after: tail ?? '' })]);

    // Now a known table tool: its "no results" line is a table of 0 rows, with its words.
    const none = await call(agent.client, 'execute_query_with_url', {
      count: 0,
      abstract_domains: 'city',
    });
    const empty = s2sp(none);
    expect(empty.total_rows).toBe(0);
    expect(empty.abstract).toEqual([]);
    expect(after(none)).toEqual([
      upstreamWordsText(
        { before: 'Query executed successfully but returned no results.', after: '' },
        false,
      ),
    ]);
  });
});
