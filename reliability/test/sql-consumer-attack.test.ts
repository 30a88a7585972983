// Figures 36.1–36.8 (third attack pass) and 37.9–37.10 (issue 53): the SQL consumer program under one client's
// pressure — memory, time-outs, stored bytes, answer size, query slots, the checker — and the
// retry grace of PROTOCOL §7.10 against the TTL and the client's quota, on the memory store and
// on a real redis-server.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRedisBodyStore } from '@s2sp/cache-redis';
import type { BodyStore } from '@s2sp/core/store';
import { createS2SPServer, estimateTokens, silentLogger } from '@s2sp/server';
import { connectMcpClient, startRedis, type ToolResult, textOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { assertDistBuilt } from './support/replicas.js';

const SQL_MAIN = fileURLToPath(new URL('../../apps/sql-consumer/dist/main.js', import.meta.url));
const TOKENS = ['sql-attack-client-a-0123', 'sql-attack-client-b-0123'] as const;
const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const codeOf = (result: ToolResult) =>
  (result as { _meta?: Record<string, unknown> })._meta?.['s2sp/error-code'] ?? 'ok';

/** Resident memory of `pid`, in bytes (0 once it is gone). */
function rssOf(pid: number): number {
  try {
    const found = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return found ? Number(found[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The processes whose parent is `pid` (the SQL consumer's query processes). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat, after the command in parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The `s2sp-sql-consumer` program in a child process, its memory readable from /proc. */
async function startSqlProgram(env: Record<string, string>) {
  assertDistBuilt();
  if (!existsSync(SQL_MAIN))
    throw new Error(`${SQL_MAIN} is missing: run \`pnpm build\` at the repository root first.`);
  const child: ChildProcess = spawn(process.execPath, [SQL_MAIN], {
    env: {
      ...process.env,
      PORT: '0',
      LOG_LEVEL: 'info',
      S2SP_AUTH_TOKENS: TOKENS.join(','),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const mcpUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 20 s:\n${stderr}`)), 20_000);
    child.stderr?.on('data', () => {
      const found = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (found?.[1]) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}):\n${stderr}`)));
  });
  const pid = child.pid as number;
  return {
    mcpUrl,
    /** Peak resident set size of the server process so far (VmHWM), in bytes. */
    peak: () => {
      const found = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return Number(found?.[1] ?? 0) * 1024;
    },
    /** Samples the server's and its query processes' resident memory every 10 ms. */
    sampleTree() {
      let tree = 0;
      let query = 0;
      const timer = setInterval(() => {
        const children = childrenOf(pid).map(rssOf);
        tree = Math.max(tree, rssOf(pid) + children.reduce((sum, rss) => sum + rss, 0));
        query = Math.max(query, ...children, 0);
      }, 10);
      return () => {
        clearInterval(timer);
        return { tree, query };
      };
    },
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    },
  };
}

async function connectAs(url: string, token: string) {
  const client = await connectMcpClient(url, { bearerToken: token });
  return {
    call: (args: Record<string, unknown>) => client.call('query_tables', args),
    [Symbol.asyncDispose]: () => client.close(),
  };
}

const ONE_ROW = { t: { body_data: [{ _row_id: 0, a: 1 }] } };
const MEMORY_PROBES = [
  'SELECT list_sort(range(30000000)) AS l',
  "SELECT repeat('x', 1000000000) AS s",
] as const;

describe('figure 36: the SQL consumer program under one client', () => {
  it('36.1: memory, default time-out', async () => {
    await using sql = await startSqlProgram({ SQL_MEMORY_LIMIT_MB: '256' });
    await using a = await connectAs(sql.mcpUrl, TOKENS[0]);
    await using b = await connectAs(sql.mcpUrl, TOKENS[1]);
    expect(codeOf(await a.call({ sql: 'SELECT 42 AS x', tables: ONE_ROW }))).toBe('ok');
    // 36.1: the issue's two probes, one after the other, then both at once.
    const before = sql.peak();
    const stop = sql.sampleTree();
    const alone: unknown[] = [];
    for (const probe of MEMORY_PROBES)
      alone.push(codeOf(await a.call({ sql: probe, tables: ONE_ROW })));
    const together = await Promise.all(
      [a, b].map(async (client, i) =>
        codeOf(await client.call({ sql: MEMORY_PROBES[i] as string, tables: ONE_ROW })),
      ),
    );
    const { tree, query } = stop();
    const serverPeak = sql.peak();
    const memoryMet =
      [...alone, ...together].every((code) => code === 'payload_too_large') &&
      serverPeak < 512 * MiB &&
      query < (256 + 256) * MiB;
    recordFigure({
      id: '36.1',
      title: `sql-consumer program, SQL_MEMORY_LIMIT_MB=256: list_sort(range(30000000)) and repeat('x', 1e9), one after the other and then both at once by two clients — answers / the server process's peak RSS (VmHWM; ${Math.round(before / MiB)} MiB before the probes; the issue: 2.0–3.2 GiB, 4.46 GiB for two at once) / largest query process seen / server and query processes together (sampled every 10 ms)`,
      value: `${alone.join(', ')}; ${together.join(', ')} / ${Math.round(serverPeak / MiB)} MiB / ${Math.round(query / MiB)} MiB / ${Math.round(tree / MiB)} MiB`,
      target: 'payload_too_large ×4 / < 512 MiB / < 512 MiB (its tables, the runtime and 256 MiB)',
      met: memoryMet,
    });
    expect(memoryMet).toBe(true);
  }, 240_000);

  it('36.2–36.5: time-out, answer size, query slots, the checker', async () => {
    await using sql = await startSqlProgram({ SQL_TIMEOUT_MS: '3000' });
    await using a = await connectAs(sql.mcpUrl, TOKENS[0]);
    await using b = await connectAs(sql.mcpUrl, TOKENS[1]);
    const warm = await a.call({ sql: 'SELECT 42 AS x', tables: ONE_ROW });
    expect(codeOf(warm)).toBe('ok');
    const idleStarted = Date.now();
    await b.call({ sql: 'SELECT 42 AS x', tables: ONE_ROW });
    const idleMs = Date.now() - idleStarted;

    // 36.2: a time-out while rows stream.
    const started = Date.now();
    const streamed = await a.call({ sql: 'SELECT * FROM range(3000000000)', tables: ONE_ROW });
    const streamedMs = Date.now() - started;
    const streamedAnswer = streamed.structuredContent as { total_rows?: number } | undefined;
    recordFigure({
      id: '36.2',
      title:
        'SELECT * FROM range(3e9) with SQL_TIMEOUT_MS=3000: answer / an error / total_rows in it (the issue: a success with total_rows of 20–64 million and truncated) / time',
      value: `${String(codeOf(streamed))} / ${streamed.isError === true ? 'yes' : 'no'} / ${streamedAnswer?.total_rows ?? 'none'} / ${streamedMs} ms`,
      target: 'timeout / yes / none',
      met: codeOf(streamed) === 'timeout' && streamed.isError === true,
    });
    expect(codeOf(streamed)).toBe('timeout');

    // 36.3: 8 tables of 255 columns named with 254 characters.
    const tables: Record<string, unknown> = {};
    for (let t = 0; t < 8; t++) {
      const row: Record<string, number> = { _row_id: 0 };
      for (let c = 0; c < 255; c++) row[`${String(c).padStart(3, '0')}${'c'.repeat(251)}`] = c;
      tables[`t${t}`] = { body_data: [row] };
    }
    const one = await a.call({ sql: 'SELECT 1', tables });
    const failed = await a.call({ sql: 'SELECT nope FROM t0', tables });
    const sizes = [one, failed].map((result) => ({
      chars: textOf(result).length,
      tokens: estimateTokens(textOf(result)),
    }));
    const labelled = [one, failed].every((result) => /… and \d+ more/.test(textOf(result)));
    recordFigure({
      id: '36.3',
      title:
        'SQL_TOKEN_BUDGET 8000, 8 inline tables of 255 columns named with 254 characters: SELECT 1 — characters, estimated tokens; the failing SELECT nope FROM t0 — code, characters, estimated tokens; column lists labelled "… and N more" (the issue: 536,838 and 537,142 characters, ~139k tokens)',
      value: `${sizes[0]?.chars}, ${sizes[0]?.tokens}; ${String(codeOf(failed))}, ${sizes[1]?.chars}, ${sizes[1]?.tokens}; ${labelled ? 'yes' : 'no'}`,
      target: '≤ 8000 tokens each; invalid_request; yes',
      met: sizes.every((s) => s.tokens <= 8000) && labelled && codeOf(failed) === 'invalid_request',
    });
    expect(sizes.every((s) => s.tokens <= 8000)).toBe(true);

    // 36.4: one client keeps 10 heavy queries in flight; another asks for SELECT 42.
    const heavy = Array.from({ length: 10 }, () =>
      a
        .call({
          sql: 'SELECT count(*) FROM range(1000000000000) r(x) WHERE x % 7 = 3',
          tables: ONE_ROW,
        })
        .then(codeOf),
    );
    await sleep(500);
    const lightStarted = Date.now();
    const light = await b.call({ sql: 'SELECT 42 AS x', tables: ONE_ROW });
    const lightMs = Date.now() - lightStarted;
    const heavyCodes = await Promise.all(heavy);
    const count = (code: string) => heavyCodes.filter((c) => c === code).length;
    recordFigure({
      id: '36.4',
      title:
        "One client (bearer token 1) keeps 10 heavy queries in flight (SQL_TIMEOUT_MS 3000; default 2 slots, 1 per client): its queries that ran to the time-out / were refused unavailable at once; another client's SELECT 42 — answer, time (the issue: refused unavailable in 26 ms, or 40 s); the same on the idle server before (a query process started and ended)",
      value: `${count('timeout')} / ${count('unavailable')}; ${String(codeOf(light))}, ${lightMs} ms; ${idleMs} ms`,
      target: '3 / 7; ok, < 3000 ms (before the first heavy query ends)',
      met: codeOf(light) === 'ok' && lightMs < 3000 && count('unavailable') === 7,
    });
    expect(codeOf(light)).toBe('ok');

    // 36.5: the checker.
    const probes = [
      'pg_settings',
      'pg_proc',
      'pg_class',
      'pg_namespace',
      'pg_type',
      'pg_tables',
      'pg_views',
      'pg_attribute',
      'pg_database',
      'pg_indexes',
    ].map((view) => `SELECT * FROM ${view}`);
    probes.push("SELECT current_setting('secret_directory') AS s");
    const checked: unknown[] = [];
    for (const probe of probes) checked.push(codeOf(await b.call({ sql: probe, tables: ONE_ROW })));
    const refused = checked.filter((code) => code === 'forbidden').length;
    const control = codeOf(await b.call({ sql: 'SELECT count(*) AS n FROM t', tables: ONE_ROW }));
    recordFigure({
      id: '36.5',
      title:
        "Unqualified pg_settings, pg_proc, pg_class and 7 more pg_catalog views, and current_setting('secret_directory') (the issue: they ran, 159 settings incl. the working and home directories) — refused forbidden; a SELECT over the call's own table",
      value: `${refused}/${probes.length}; ${String(control)}`,
      target: `${probes.length}/${probes.length}; ok`,
      met: refused === probes.length && control === 'ok',
    });
    expect(refused).toBe(probes.length);
  }, 240_000);

  it('36.6: as_table answers of one client against its byte budget, defaults', async () => {
    await using sql = await startSqlProgram({});
    await using a = await connectAs(sql.mcpUrl, TOKENS[0]);
    await using b = await connectAs(sql.mcpUrl, TOKENS[1]);
    const store = (client: typeof a) =>
      client.call({
        sql: "SELECT i, repeat('x', 40000) AS s FROM range(200) r(i)",
        tables: ONE_ROW,
        as_table: true,
        abstract_domains: 'i',
      });
    let stored = 0;
    let refusal: unknown = 'none';
    const started = Date.now();
    for (let i = 0; i < 40 && refusal === 'none'; i++) {
      const code = codeOf(await store(a));
      if (code === 'ok') stored++;
      else refusal = code;
    }
    const ms = Date.now() - started;
    const other = codeOf(await store(b));
    recordFigure({
      id: '36.6',
      title:
        'Default settings (256 MiB store, SQL_MAX_BYTES_PER_CLIENT 32 MiB): one client stores as_table answers of ~8 MB until refused — answers stored, the refusal, time; another client then stores one (the issue: 36 calls filled the whole store in 3.3 s; every other client got store_full for the TTL)',
      value: `${stored} (${stored * 8} MB), ${String(refusal)}, ${ms} ms; ${String(other)}`,
      target: '≤ 4 (32 MiB), store_full; ok',
      met: stored <= 4 && refusal === 'store_full' && other === 'ok',
    });
    expect([refusal, other]).toEqual(['store_full', 'ok']);
  }, 240_000);

  it('37.9, 37.10 (issue 53 rows 9, 10): the checker through a recursive CTE; a fair queue', async () => {
    // 37.9: a recursive CTE named after a catalog view whose anchor reads the real view.
    const tokens = Array.from({ length: 11 }, (_, i) => `sql-fair-client-${i}-0123456789`);
    await using sql = await startSqlProgram({
      SQL_TIMEOUT_MS: '3000',
      S2SP_AUTH_TOKENS: tokens.join(','),
    });
    const clients = await Promise.all(tokens.map((token) => connectAs(sql.mcpUrl, token)));
    try {
      const first = clients[0] as (typeof clients)[number];
      const cte = await first.call({
        sql: 'WITH RECURSIVE pg_settings AS (SELECT name, setting FROM pg_settings UNION ALL SELECT name, setting FROM pg_settings WHERE false) SELECT * FROM pg_settings',
        tables: ONE_ROW,
      });
      const macro = await first.call({
        sql: "SELECT get_block_size('memory') AS b",
        tables: ONE_ROW,
      });
      const rows = (cte.structuredContent as { total_rows?: number } | undefined)?.total_rows;
      recordFigure({
        id: '37.9',
        title:
          "WITH RECURSIVE pg_settings AS (SELECT name, setting FROM pg_settings UNION ALL … WHERE false) SELECT * FROM pg_settings — answer (settings returned); SELECT get_block_size('memory') — answer",
        value: `${String(codeOf(cte))}${rows === undefined ? '' : ` (${rows} settings)`}; ${String(codeOf(macro))}`,
        target: 'forbidden; forbidden',
        met: codeOf(cte) === 'forbidden' && codeOf(macro) === 'forbidden',
      });

      // 37.10: one heavy query from each of 10 clients (default 2 slots + 8 waiting), then an 11th.
      const heavy = clients.slice(0, 10).map((client) =>
        client
          .call({
            sql: 'SELECT count(*) FROM range(1000000000000) r(x) WHERE x % 7 = 3',
            tables: ONE_ROW,
          })
          .then(codeOf),
      );
      await sleep(500);
      const started = Date.now();
      const eleventh = await (clients[10] as (typeof clients)[number]).call({
        sql: 'SELECT 42 AS x',
        tables: ONE_ROW,
      });
      const eleventhMs = Date.now() - started;
      const heavyCodes = await Promise.all(heavy);
      recordFigure({
        id: '37.10',
        title:
          "SQL_TIMEOUT_MS 3000, default slots: one heavy query from each of 10 clients (bearer tokens), then an 11th client's SELECT 42 — its answer, time; the 10 heavy answers",
        value: `${String(codeOf(eleventh))}, ${eleventhMs} ms; ${heavyCodes.join(', ')}`,
        target: 'ok (queued and served)',
        met: codeOf(eleventh) === 'ok',
      });
      expect(codeOf(cte)).toBe('forbidden');
      expect(codeOf(eleventh)).toBe('ok');
    } finally {
      for (const client of clients) await client[Symbol.asyncDispose]();
    }
  }, 240_000);
});

describe('figure 36: the retry grace of PROTOCOL §7.10 against the TTL and the quota', () => {
  async function graceProbe(store: BodyStore | undefined) {
    const server = createS2SPServer({
      name: 'grace',
      version: '1',
      logger: silentLogger,
      ttlSeconds: 5,
      maxEntriesPerClient: 1,
      ...(store && { store }),
    });
    server.resourceTool('rows', { description: 'rows' }, () => [{ a: 1, b: 2 }]);
    const listening = await server.listen({ port: 0, host: '127.0.0.1' });
    try {
      await using agent = await connectMcpClient(listening.mcpUrl);
      const minted = Date.now();
      const result = await agent.call('rows', { abstract_domains: 'a' });
      const url = (result.structuredContent as { resource_url: string }).resource_url;
      const redeem = async () =>
        (
          await fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'idempotency-key': 'attack-pass-retry-key-0123456789',
            },
            body: '{}',
          })
        ).status;
      const at = async (ms: number) => sleep(Math.max(0, minted + ms - Date.now()));
      await at(4000);
      const statuses = [await redeem()];
      for (const ms of [4200, 4400, 4600]) {
        await at(ms);
        statuses.push(await redeem());
      }
      await at(5600);
      statuses.push(await redeem());
      const next = await agent.call('rows', { abstract_domains: 'a' });
      return { statuses, next: codeOf(next) };
    } finally {
      await server.close();
    }
  }

  it('36.7–36.8: a keyed take 4 s into a 5 s TTL, repeated; the client afterwards', async () => {
    await using redis = await startRedis({ spawn: true });
    const [memory, onRedis] = await Promise.all([
      graceProbe(undefined),
      graceProbe(createRedisBodyStore({ url: redis.url, keyPrefix: 'f36:', logger: silentLogger })),
    ]);
    for (const [id, name, probe] of [
      ['36.7', 'memory store', memory],
      ['36.8', 'Redis store (redis-server)', onRedis],
    ] as const) {
      const met = probe.statuses.join(',') === '200,200,200,200,404' && probe.next === 'ok';
      recordFigure({
        id,
        title: `${name}, S2SP_TTL_SECONDS=5, retry grace 60 s, maxEntriesPerClient 1: a keyed redemption at 4.0 s, repeated at 4.2, 4.4, 4.6 and 5.6 s — statuses; the same client's next async call at 5.6 s (the issue: served again at 30 s and 62 s; each repeat restarted the client's hold, store_full after the entry was gone)`,
        value: `${probe.statuses.join(', ')}; ${String(probe.next)}`,
        target: '200, 200, 200, 200, 404; ok',
        met,
      });
      expect(met).toBe(true);
    }
  }, 60_000);
});
