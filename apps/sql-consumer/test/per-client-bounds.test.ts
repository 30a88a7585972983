/**
 * The SQL consumer under one client's pressure: memory, time, stored bytes, answer size
 * and query slots, each bounded for the process and per client as on the resource servers and the
 * proxy. Real MCP SDK clients on loopback, told apart by bearer token (`clientKey`).
 */
import { estimateTokens, silentLogger } from '@s2sp/server';
import { connectMcpClient, type ToolResult, textOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import type { SqlLimits } from '../src/sql-limits.js';
import { createSqlServer } from '../src/sql-server.js';

const TOKENS = ['client-a-token-0123456789', 'client-b-token-0123456789'] as const;

async function startSql(limits: Partial<SqlLimits>) {
  const sql = createSqlServer({
    logger: silentLogger,
    limits,
    edge: { auth: { bearerTokens: [...TOKENS] } },
  });
  const listening = await sql.server.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: listening.mcpUrl,
    [Symbol.asyncDispose]: () => sql.server.close(),
  };
}

async function connectAs(url: string, token: string) {
  const client = await connectMcpClient(url, { bearerToken: token });
  return {
    call: (args: Record<string, unknown>) => client.call('query_tables', args),
    [Symbol.asyncDispose]: () => client.close(),
  };
}

function codeOf(result: ToolResult): unknown {
  return (result as { _meta?: Record<string, unknown> })._meta?.['s2sp/error-code'];
}

const ONE_ROW = { t: { body_data: [{ _row_id: 0, a: 1 }] } };

describe('query_tables per-client bounds', () => {
  it('stops a query whose values outgrow the memory limit, outside the server process', async () => {
    await using server = await startSql({ memoryLimitMb: 256 });
    await using a = await connectAs(server.url, TOKENS[0]);
    let peak = process.memoryUsage.rss();
    const before = peak;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    try {
      // Before: 2.0-3.2 GiB in the server process (DuckDB's memory_limit does not count lists
      // or strings a query builds).
      for (const sql of [
        'SELECT len(list_sort(range(30000000))) AS n',
        "SELECT length(repeat('x', 1000000000)) AS n",
      ]) {
        expect(codeOf(await a.call({ sql, tables: ONE_ROW }))).toBe('payload_too_large');
      }
    } finally {
      clearInterval(sampler);
    }
    expect((peak - before) / 2 ** 20).toBeLessThan(200);
    // The next query runs as usual.
    expect(
      (await a.call({ sql: 'SELECT 42 AS x', tables: ONE_ROW })).structuredContent,
    ).toMatchObject({ rows: [{ x: 42 }] });
  }, 120_000);

  it('answers timeout, not a cut success, when the time runs out while rows stream', async () => {
    await using server = await startSql({ timeoutMs: 500 });
    await using a = await connectAs(server.url, TOKENS[0]);
    const result = await a.call({ sql: 'SELECT * FROM range(3000000000)', tables: ONE_ROW });
    expect([result.isError, codeOf(result)]).toEqual([true, 'timeout']);
  }, 60_000);

  it("keeps each client's stored as_table answers to its own byte budget", async () => {
    await using server = await startSql({ maxStoredBytesPerClient: 1024 * 1024 });
    await using a = await connectAs(server.url, TOKENS[0]);
    await using b = await connectAs(server.url, TOKENS[1]);
    const store = (client: typeof a) =>
      client.call({
        sql: "SELECT i, repeat('x', 1000) AS s FROM range(300) r(i)",
        tables: ONE_ROW,
        as_table: true,
        abstract_domains: 'i',
      });
    const codes: unknown[] = [];
    for (let i = 0; i < 6; i++) codes.push(codeOf(await store(a)) ?? 'stored');
    // About 300 KB each: three fit in 1 MiB, the rest are refused for this client only.
    expect(codes).toEqual(['stored', 'stored', 'stored', 'store_full', 'store_full', 'store_full']);
    expect(codeOf(await store(b)) ?? 'stored').toBe('stored');
    // One answer over the budget is refused before it is held whole.
    const huge = await a.call({
      sql: "SELECT repeat('x', 1000) AS s FROM range(2000)",
      tables: ONE_ROW,
      as_table: true,
      abstract_domains: 's',
    });
    expect(codeOf(huge)).toBe('payload_too_large');
  }, 120_000);

  it('keeps every answer and error within the token budget, column lists capped and counted', async () => {
    await using server = await startSql({ tokenBudget: 8000 });
    await using a = await connectAs(server.url, TOKENS[0]);
    // 8 tables of 255 columns named with 254 characters: before, `SELECT 1` answered 536,838
    // characters (~139k tokens) and the failing query 537,142.
    const tables: Record<string, unknown> = {};
    for (let t = 0; t < 8; t++) {
      const row: Record<string, number> = {};
      for (let c = 0; c < 255; c++) row[`${String(c).padStart(3, '0')}${'c'.repeat(251)}`] = c;
      tables[`t${t}`] = { body_data: [{ _row_id: 0, ...row }] };
    }
    const ok = await a.call({ sql: 'SELECT 1 AS one', tables });
    expect(ok.isError).toBeFalsy();
    expect(estimateTokens(textOf(ok))).toBeLessThanOrEqual(8000);
    expect(ok.structuredContent).toMatchObject({ rows: [{ one: 1 }], total_rows: 1 });
    expect(JSON.stringify(ok.structuredContent)).toMatch(/… and \d+ more/);
    const wide = await a.call({ sql: 'SELECT * FROM t0', tables });
    expect(estimateTokens(textOf(wide))).toBeLessThanOrEqual(8000);
    expect((wide.structuredContent as { columns: string }).columns).toMatch(/… and \d+ more$/);
    const failed = await a.call({ sql: 'SELECT nope FROM t0', tables });
    expect(codeOf(failed)).toBe('invalid_request');
    expect(estimateTokens(textOf(failed))).toBeLessThanOrEqual(8000);
    expect(textOf(failed)).toMatch(/… and \d+ more/);
  }, 120_000);

  it("gives each client its own query slots: another client's SELECT 42 is not held behind", async () => {
    await using server = await startSql({ timeoutMs: 3000 });
    await using a = await connectAs(server.url, TOKENS[0]);
    await using b = await connectAs(server.url, TOKENS[1]);
    const order: string[] = [];
    const heavy = Array.from({ length: 4 }, (_, i) =>
      a
        .call({
          sql: 'SELECT count(*) FROM range(1000000000000) r(x) WHERE x % 7 = 3',
          tables: ONE_ROW,
        })
        .then((result) => {
          order.push(`a${i} ${String(codeOf(result))}`);
          return codeOf(result);
        }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const light = await b.call({ sql: 'SELECT 42 AS x', tables: ONE_ROW });
    order.push('b');
    expect(light.structuredContent).toMatchObject({ rows: [{ x: 42 }] });
    const codes = await Promise.all(heavy);
    // Before: the server-wide slots were the only ones, so A's queries held B for seconds.
    expect(order.indexOf('b')).toBeLessThan(order.findIndex((entry) => entry.endsWith('timeout')));
    // One of A's runs, two wait in its own line, the fourth is refused at once.
    expect(codes.filter((c) => c === 'unavailable')).toHaveLength(1);
    expect(codes.filter((c) => c === 'timeout')).toHaveLength(3);
  }, 120_000);
});
