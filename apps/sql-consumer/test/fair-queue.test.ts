/**
 * The SQL consumer's query slots shared fairly between clients: real MCP SDK clients told apart
 * by bearer token (`clientKey`), whose queries fetch their table from a real resource server whose
 * store holds every redemption until the test opens it, so the running slots stay taken while
 * the test watches who waits and who is refused. No clock: the order of events decides.
 */
import { createMemoryStore } from '@s2sp/core/store';
import { createS2SPServer, silentLogger } from '@s2sp/server';
import { connectMcpClient, type TestMcpClient, type ToolResult } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import type { SqlLimits } from '../src/sql-limits.js';
import { createSqlServer, type SqlServer } from '../src/sql-server.js';

const TOKENS = Array.from({ length: 11 }, (_, i) => `fair-queue-client-${i}-0123456789`);

/** A resource server whose redemptions wait until `open()`: `arrived` counts those waiting. */
async function startHeldResourceServer() {
  const store = createMemoryStore();
  let opened = false;
  const held: (() => void)[] = [];
  const watchers: { count: number; resolve: () => void }[] = [];
  let arrived = 0;
  const server = createS2SPServer({
    name: 'held',
    version: '1',
    logger: silentLogger,
    store: {
      put: (key, table, options) => store.put(key, table, options),
      async take(key, rowIds, options) {
        if (!opened) {
          arrived++;
          for (const watcher of watchers) if (arrived >= watcher.count) watcher.resolve();
          await new Promise<void>((resolve) => held.push(resolve));
        }
        return store.take(key, rowIds, options);
      },
      stats: () => store.stats(),
      close: () => store.close(),
    },
  });
  server.resourceTool(
    'numbered',
    { description: 'One row numbered k.', inputSchema: { k: (await import('zod')).z.number() } },
    ({ k }) => [{ k }],
  );
  const listening = await server.listen({ port: 0, host: '127.0.0.1' });
  const agent = await connectMcpClient(listening.mcpUrl);
  return {
    url: listening.url,
    /** A fresh single-use resource_url of the one row `{k}`. */
    async table(k: number): Promise<string> {
      const result = await agent.call('numbered', { k, abstract_domains: 'k' });
      return (result.structuredContent as { resource_url: string }).resource_url;
    },
    /** Resolves once `count` redemptions are held, or once any of `unless` settles first. */
    arrivals: (count: number, unless: readonly Promise<unknown>[] = []) =>
      new Promise<void>((resolve) => {
        if (arrived >= count) resolve();
        else watchers.push({ count, resolve });
        for (const call of unless) void call.finally(resolve);
      }),
    open() {
      opened = true;
      for (const release of held.splice(0)) release();
    },
    async [Symbol.asyncDispose]() {
      this.open();
      await agent.close();
      await server.close();
    },
  };
}

async function startSql(allowedOrigin: string, limits: Partial<SqlLimits>) {
  const sql = createSqlServer({
    logger: silentLogger,
    limits,
    allowedOrigins: [allowedOrigin],
    edge: { auth: { bearerTokens: TOKENS } },
  });
  const listening = await sql.server.listen({ port: 0, host: '127.0.0.1' });
  return { sql, url: listening.mcpUrl, [Symbol.asyncDispose]: () => sql.server.close() };
}

/**
 * Resolves once the SQL server has `count` queries waiting (checked as the loop turns), or once
 * `unless` settles first (a call answered instead of waiting).
 */
async function waitingReaches(
  sql: SqlServer,
  count: number,
  unless: readonly Promise<unknown>[] = [],
): Promise<void> {
  let settled = false;
  for (const call of unless)
    void call.finally(() => {
      settled = true;
    });
  while (sql.queries.waiting < count && !settled)
    await new Promise((resolve) => setImmediate(resolve));
}

function outcome(result: ToolResult): unknown {
  const code = (result as { _meta?: Record<string, unknown> })._meta?.['s2sp/error-code'];
  return code ?? (result.structuredContent as { rows: unknown[] }).rows;
}

describe('query_tables shares its query slots fairly between clients', () => {
  it('queues an eleventh client behind ten heavy ones, instead of refusing it', async () => {
    await using resources = await startHeldResourceServer();
    await using server = await startSql(resources.url, { maxConcurrentQueries: 2 });
    const clients: TestMcpClient[] = [];
    try {
      for (const token of TOKENS)
        clients.push(await connectMcpClient(server.url, { bearerToken: token }));
      const urls = await Promise.all(Array.from({ length: 10 }, (_, k) => resources.table(k)));
      // Ten clients, one query each: two run (their tables held), eight wait.
      const heavy = urls.map((url, k) =>
        (clients[k] as TestMcpClient)
          .call('query_tables', { sql: 'SELECT k FROM t', tables: { t: url } })
          .then(outcome),
      );
      await resources.arrivals(2, heavy);
      await waitingReaches(server.sql, 8, heavy);
      expect([server.sql.queries.running, server.sql.queries.waiting]).toEqual([2, 8]);
      // Before: the queue (8 places, first come) was full, and the eleventh got `unavailable`.
      const eleventh = (clients[10] as TestMcpClient)
        .call('query_tables', {
          sql: 'SELECT 42 AS x',
          tables: { t: { body_data: [{ _row_id: 0, a: 1 }] } },
        })
        .then(outcome);
      await waitingReaches(server.sql, 9, [eleventh]);
      expect([server.sql.queries.running, server.sql.queries.waiting]).toEqual([2, 9]);
      resources.open();
      expect(await eleventh).toEqual([{ x: 42 }]);
      expect(await Promise.all(heavy)).toEqual(urls.map((_, k) => [{ k }]));
    } finally {
      for (const client of clients) await client.close();
    }
  }, 180_000);

  it('gives a client arriving at a full queue the place of the client that fills it', async () => {
    await using resources = await startHeldResourceServer();
    await using server = await startSql(resources.url, {
      maxConcurrentQueries: 1,
      maxWaitingQueries: 2,
    });
    await using a = await connectMcpClient(server.url, { bearerToken: TOKENS[0] });
    await using b = await connectMcpClient(server.url, { bearerToken: TOKENS[1] });
    await using c = await connectMcpClient(server.url, { bearerToken: TOKENS[2] });
    const urls = await Promise.all([0, 1, 2].map((k) => resources.table(k)));
    const ask = (client: TestMcpClient, tables: Record<string, unknown>) =>
      client
        .call('query_tables', { sql: 'SELECT * EXCLUDE (_row_id) FROM t', tables })
        .then(outcome);
    // A runs one query (held) and fills both waiting places.
    const first = ask(a, { t: urls[0] });
    await resources.arrivals(1, [first]);
    const second = ask(a, { t: urls[1] });
    await waitingReaches(server.sql, 1, [first, second]);
    const third = ask(a, { t: urls[2] });
    await waitingReaches(server.sql, 2, [first, second, third]);
    expect([server.sql.queries.running, server.sql.queries.waiting]).toEqual([1, 2]);
    // B has nothing waiting: it takes A's newest place, and A's third query is refused.
    const fromB = ask(b, { t: { body_data: [{ _row_id: 0, b: 'b' }] } });
    expect(await third).toBe('unavailable');
    // C finds one waiting place each for A and B: nobody holds more than C would, so C is refused.
    expect(await ask(c, { t: { body_data: [{ _row_id: 0, c: 'c' }] } })).toBe('unavailable');
    resources.open();
    expect(await Promise.all([first, second, fromB])).toEqual([
      [{ k: 0 }],
      [{ k: 1 }],
      [{ b: 'b' }],
    ]);
  }, 180_000);
});
