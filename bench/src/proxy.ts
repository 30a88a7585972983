import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fetchBody, S2SPResultSchema } from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { createS2SPProxy } from '@s2sp/proxy';
import { silentLogger } from '@s2sp/server';
import { freePort, postgresBinDir, startPostgres } from '@s2sp/test-utils';
import type { BenchRow } from './report.js';
import { latency, round } from './stats.js';
import { countTokens } from './tokenizer.js';

const SECTION =
  '7. @s2sp/proxy in front of @modelcontextprotocol/server-postgres (a real PostgreSQL): added latency and tokens';

const require = createRequire(import.meta.url);
const bin = (pkg: string, file: string) =>
  join(dirname(require.resolve(`${pkg}/package.json`)), file);

/** True when a throwaway PostgreSQL cluster can be started (initdb installed). */
export function postgresAvailable(): boolean {
  try {
    postgresBinDir();
    return true;
  } catch {
    return false;
  }
}

const SQL = 'SELECT * FROM alerts ORDER BY id';

async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return client;
}

async function time(client: Client, args: Record<string, unknown>, calls: number) {
  for (let i = 0; i < 5; i++) await client.callTool({ name: 'query', arguments: args });
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    const result = await client.callTool({ name: 'query', arguments: args });
    samples.push(performance.now() - t);
    if (result.isError)
      throw new Error(`proxy bench call failed: ${JSON.stringify(result.content)}`);
  }
  return latency(samples);
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const [block] = result.content as { type: string; text?: string }[];
  if (block?.type !== 'text' || block.text === undefined) throw new Error('no text block');
  return block.text;
}

/**
 * The proxy's cost and benefit with a server no one here wrote: server-postgres on stdio, called
 * directly, through the proxy on stdio (as Claude Desktop runs it), and through the proxy on
 * Streamable HTTP. The proxy and the upstream are separate processes; the bench is the agent.
 */
export async function proxyBenchmark(quick: boolean): Promise<BenchRow[]> {
  const pg = await startPostgres();
  const clients: Client[] = [];
  const out: BenchRow[] = [];
  try {
    await pg.sql(`
      CREATE TABLE alerts (id int PRIMARY KEY, event text, severity text, urgency text, area text,
        sender text, headline text, description text, instruction text);
      INSERT INTO alerts SELECT i,
        (ARRAY['Heat Advisory','Flood Watch','Wind Advisory','Red Flag Warning'])[1 + i % 4],
        (ARRAY['Moderate','Severe','Minor'])[1 + i % 3], (ARRAY['Expected','Immediate'])[1 + i % 2],
        'County ' || i || ', TX', 'NWS Office ' || (i % 7),
        'Advisory issued for County ' || i || ' until further notice',
        repeat('Hot temperatures and high humidity may cause heat illnesses. ', 6),
        'Drink plenty of fluids, stay in an air-conditioned room, and check up on relatives.'
      FROM generate_series(1, 50) AS i;`);
    const upstream = [bin('@modelcontextprotocol/server-postgres', 'dist/index.js'), pg.url];
    const proxyMain = bin('@s2sp/proxy', 'dist/main.js');
    const direct = await connect(
      new StdioClientTransport({ command: process.execPath, args: upstream, stderr: 'ignore' }),
    );
    clients.push(direct);
    // The proxy as Claude Desktop runs it: a child process speaking MCP on stdio.
    const proxyProcess = (extra: string[]) =>
      new StdioClientTransport({
        command: process.execPath,
        args: [
          proxyMain,
          '--stdio',
          ...extra,
          '--log-level',
          'silent',
          '--table-tool',
          'query',
          '--',
          process.execPath,
          ...upstream,
        ],
        stderr: 'ignore',
      });
    const viaStdio = await connect(proxyProcess([]));
    clients.push(viaStdio);
    const port = await freePort();
    const stdioTransportOfHttpProxy = proxyProcess(['--port', String(port)]);
    // A second proxy process whose HTTP /mcp the bench uses; its stdio side only keeps it alive.
    clients.push(await connect(stdioTransportOfHttpProxy));
    const viaHttp = await connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
    );
    clients.push(viaHttp);

    const calls = quick ? 20 : 300;
    const base = await time(direct, { sql: SQL }, calls);
    const rows: [string, Client, Record<string, unknown>][] = [
      ['through the proxy (stdio), pass-through', viaStdio, { sql: SQL }],
      [
        'through the proxy (stdio), S2SP async, 2 abstract columns',
        viaStdio,
        { sql: SQL, abstract_domains: 'event,severity' },
      ],
      ['through the proxy (HTTP), pass-through', viaHttp, { sql: SQL }],
      [
        'through the proxy (HTTP), S2SP async, 2 abstract columns',
        viaHttp,
        { sql: SQL, abstract_domains: 'event,severity' },
      ],
    ];
    out.push({
      section: SECTION,
      name: 'directly (stdio), 50 rows',
      values: {
        'p50 ms': round(base.p50),
        'p99 ms': round(base.p99),
        'added p50 ms': 0,
        'added p99 ms': 0,
      },
    });
    for (const [name, client, args] of rows) {
      const measured = await time(client, args, calls);
      out.push({
        section: SECTION,
        name,
        values: {
          'p50 ms': round(measured.p50),
          'p99 ms': round(measured.p99),
          'added p50 ms': round(measured.p50 - base.p50),
          'added p99 ms': round(measured.p99 - base.p99),
        },
      });
    }

    const plain = textOf(await direct.callTool({ name: 'query', arguments: { sql: SQL } }));
    const proxiedPlain = textOf(
      await viaStdio.callTool({ name: 'query', arguments: { sql: SQL } }),
    );
    if (plain !== proxiedPlain)
      throw new Error('proxy pass-through result differs from the upstream');
    const split = textOf(
      await viaStdio.callTool({
        name: 'query',
        arguments: { sql: SQL, abstract_domains: 'event,severity' },
      }),
    );
    const directTools = JSON.stringify((await direct.listTools()).tools);
    const proxiedTools = JSON.stringify((await viaStdio.listTools()).tools);
    const read = (result: string, tools: string) =>
      countTokens(result).o200k_base + countTokens(tools).o200k_base;
    const directTokens = read(plain, directTools);
    const proxiedTokens = read(split, proxiedTools);
    out.push({
      section: SECTION,
      name: 'tokens the model reads for one query (50 rows × 9 columns), tools/list included',
      values: {
        directly: directTokens,
        'proxy + abstract_domains=event,severity': proxiedTokens,
        'tools/list share (proxy)': countTokens(proxiedTools).o200k_base,
        saved: `${round((1 - proxiedTokens / directTokens) * 100)}%`,
      },
    });
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await pg.stop();
  }
  return out;
}

const LARGE_SECTION =
  '7b. @s2sp/proxy: a large upstream table (memory) and the pass-through cost (a trivial upstream)';

/** Resident memory of a process, from /proc (Linux): now and the peak since the last reset. */
function residentKb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** Starts the peak-RSS count over from the current RSS (Linux `clear_refs` 5). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** The proxy's options in 7b, as flags (its own process) and as `createS2SPProxy` options. */
const LARGE_PROXY = {
  tableTools: ['rows', 'csv'],
  maxUpstreamResultBytes: 512 * 1024 * 1024,
  maxBytesPerClient: 1024 * 1024 * 1024,
  // A table of short rows has more abstract pages (unread, stored) than the default 1,000.
  maxEntriesPerClient: 100_000,
  timeoutSeconds: 900,
};

/** The rows of the bench upstream's answer (`table-upstream.ts`), each cell as JSON text. */
function upstreamCells(tool: 'rows' | 'csv', text: string): string[][] {
  if (tool === 'rows')
    return (JSON.parse(text) as Record<string, unknown>[]).map((row) =>
      Object.values(row).map((cell) => JSON.stringify(cell)),
    );
  const [header, ...lines] = text.trimEnd().split('\n');
  const columns = (header ?? '').split(',');
  const records = lines.map((line) => line.split(','));
  // The proxy reads a column whose every cell is a number (the same text back) as numbers.
  const numeric = columns.map((_, c) =>
    records.every((record) => {
      const cell = record[c] ?? '';
      return cell !== '' && String(Number(cell)) === cell;
    }),
  );
  return records.map((record) =>
    record.map((cell, c) => JSON.stringify(numeric[c] ? Number(cell) : cell)),
  );
}

/**
 * What the proxy's store holds once `tool` has answered `mb` megabytes split with `split`, and
 * the check that the split lost nothing: the same proxy (`createS2SPProxy`, the options of the
 * measured process) in this process on a memory store, its `stats()` after the call (the
 * serialised rows of the table and of its unread abstract pages, UTF-8), then the table redeemed
 * over its data plane and every cell compared with the upstream's answer (`expected`).
 */
async function storedTable(
  upstream: string,
  tool: 'rows' | 'csv',
  args: Record<string, unknown>,
  expected: string,
): Promise<{ bytes: number; entries: number; rows: number }> {
  const store = createMemoryStore({ maxBytes: 8 * 1024 ** 3, maxEntries: 1_000_000 });
  const proxy = createS2SPProxy({
    ...LARGE_PROXY,
    upstream: { kind: 'stdio', command: process.execPath, args: [upstream] },
    tableTools: LARGE_PROXY.tableTools.map((name) => ({ name })),
    store,
    logger: silentLogger,
    onUpstreamStderr: () => {},
  });
  await proxy.start();
  const listener = await proxy.listen();
  const client = new Client({ name: 'bench', version: '1' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.mcpUrl)));
    const result = await client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: 900_000,
    });
    if (result.isError) throw new Error(`${tool} failed: ${textOf(result).slice(0, 300)}`);
    const stats = await store.stats();
    const split = S2SPResultSchema.parse(result.structuredContent);
    if (!split.resource_url) throw new Error(`${tool}: no resource_url`);
    const { body } = await fetchBody(split.resource_url, {
      destinations: 'any',
      maxBytes: 1024 ** 3,
      timeoutMs: 900_000,
    });
    const cells = upstreamCells(tool, expected);
    if (body.length !== cells.length)
      throw new Error(`${tool}: ${body.length} rows redeemed, the upstream sent ${cells.length}`);
    body.forEach((row, i) => {
      const { _row_id: _, ...rest } = row as Record<string, unknown>;
      const got = Object.values(rest).map((cell) => JSON.stringify(cell));
      const want = cells[i] ?? [];
      if (got.length !== want.length || got.some((cell, c) => cell !== want[c]))
        throw new Error(`${tool}: row ${i} redeemed ${got.join(',')}, upstream ${want.join(',')}`);
    });
    return { bytes: stats.bytes, entries: stats.entries, rows: body.length };
  } finally {
    await client.close().catch(() => {});
    await listener.close();
    await proxy.close();
    await store.close();
  }
}

/**
 * The proxy in its own process in front of a stdio upstream (bench/src/procs/table-upstream.ts):
 * (1) the added latency of a pass-through call (`ping`, a few bytes) against the same upstream
 * called directly; (2) the proxy's peak resident memory above its idle baseline while it splits
 * and stores one ~50 MB JSON table (`rows`, one text block of JSON,
 * `abstract_domains=event,severity`), against what its store must hold for that table
 * ({@link storedTable}: a CSV of short rows becomes about three times its size as the contract's
 * JSON rows, so the CSV's own size is no floor) and against the table's size; (3) the same for a
 * ~20 MB CSV of short rows (`csv`). Target, at full size (issue 54): peak above idle ≤ 2.2× the
 * store's bytes, for each, in each of three runs (a fresh proxy process each). `memoryOnly` (`--only=proxy-memory`) measures (2) and (3) alone.
 * `S2SP_BENCH_PROXY_MAIN` runs another build of the proxy (to measure an older version the same
 * way).
 */
export async function proxyLargeTableBenchmark(
  quick: boolean,
  memoryOnly = false,
): Promise<BenchRow[]> {
  const upstream = fileURLToPath(new URL('./table-upstream.js', import.meta.url));
  const proxyMain = process.env.S2SP_BENCH_PROXY_MAIN ?? bin('@s2sp/proxy', 'dist/main.js');
  const out: BenchRow[] = [];
  const clients: Client[] = [];
  try {
    // The SDK's stdio client refuses messages over 10 MiB unless told otherwise.
    const direct = await connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [upstream],
        stderr: 'ignore',
        maxBufferSize: 1024 * 1024 * 1024,
      }),
    );
    clients.push(direct);
    /** A proxy process of its own in front of the upstream, with its pid. */
    const startProxy = async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          proxyMain,
          '--stdio',
          '--log-level',
          'silent',
          ...LARGE_PROXY.tableTools.flatMap((name) => ['--table-tool', name]),
          '--max-upstream-result-bytes',
          String(LARGE_PROXY.maxUpstreamResultBytes),
          '--max-bytes-per-client',
          String(LARGE_PROXY.maxBytesPerClient),
          '--max-entries-per-client',
          String(LARGE_PROXY.maxEntriesPerClient),
          '--timeout',
          String(LARGE_PROXY.timeoutSeconds),
          '--',
          process.execPath,
          upstream,
        ],
        stderr: 'ignore',
      });
      const client = await connect(transport);
      clients.push(client);
      const pid = transport.pid;
      if (pid === null) throw new Error('the proxy process has no pid');
      return { client, pid };
    };

    if (!memoryOnly) {
      const { client: viaProxy } = await startProxy();
      // Pass-through: a few bytes, so the figure is the proxy's own cost per call.
      const calls = quick ? 50 : 1000;
      const ping = async (client: Client) => {
        for (let i = 0; i < 20; i++) await client.callTool({ name: 'ping', arguments: {} });
        const samples: number[] = [];
        for (let i = 0; i < calls; i++) {
          const t = performance.now();
          await client.callTool({ name: 'ping', arguments: {} });
          samples.push(performance.now() - t);
        }
        return latency(samples);
      };
      const base = await ping(direct);
      const proxied = await ping(viaProxy);
      out.push({
        section: LARGE_SECTION,
        name: `pass-through call (a 4-byte text result), stdio, ${calls} calls`,
        values: {
          'directly p50 ms': round(base.p50),
          'through the proxy p50 ms': round(proxied.p50),
          'added p50 ms': round(proxied.p50 - base.p50),
          'added p99 ms': round(proxied.p99 - base.p99),
        },
        target: 'added p50 ≤ 1 ms',
        met: proxied.p50 - base.p50 <= 1,
      });
    }

    /**
     * Peak memory of one large split call of `tool` in a proxy process of its own (each table
     * from the same idle), after a warm-up on a small table. The peak depends on when V8 runs a
     * full collection, which differs from run to run: at full size it is taken `runs` times, each
     * in a fresh process, and judged by the worst.
     */
    const measure = async (tool: 'rows' | 'csv', mb: number, what: string) => {
      // A loaded machine takes a while over tens of megabytes: no SDK time limit gets in the way.
      const long = { timeout: 900_000 };
      const split = { abstract_domains: 'event,severity' };
      const runs = quick ? 1 : 3;
      const peaks: { idle: number; peak: number; after: number; ms: number }[] = [];
      let text = '';
      for (let run = 0; run < runs; run++) {
        const { client: viaProxy, pid } = await startProxy();
        for (let i = 0; i < 3; i++)
          await viaProxy.callTool({ name: tool, arguments: { mb: 1, ...split } });
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        // The table the proxy will be sent, asked of the upstream directly: the proxy idles
        // meanwhile, as it did when each table was measured once.
        text = textOf(await direct.callTool({ name: tool, arguments: { mb } }, undefined, long));
        const idle = residentKb(pid);
        resetPeak(pid);
        const t = performance.now();
        const result = await viaProxy.callTool(
          { name: tool, arguments: { mb, ...split } },
          undefined,
          long,
        );
        const ms = performance.now() - t;
        if (result.isError)
          throw new Error(
            `large proxy call failed: ${JSON.stringify(result.content).slice(0, 300)}`,
          );
        const after = residentKb(pid);
        peaks.push({ idle: idle.rss * 1024, peak: after.peak * 1024, after: after.rss * 1024, ms });
        await viaProxy.close();
      }
      // Above the lowest idle of the runs: a process whose heap had not yet shrunk after its
      // warm-up idles tens of megabytes higher, which would hide as much of its peak.
      const idle = Math.min(...peaks.map((run) => run.idle));
      const worst = peaks.reduce((a, b) => (b.peak > a.peak ? b : a));
      const peakAbove = worst.peak - idle;
      const bytes = text.length;
      // Measured apart from the processes above (after they are closed), on the same table.
      const stored = await storedTable(upstream, tool, { mb, ...split }, text);
      out.push({
        section: LARGE_SECTION,
        name: `one ${round(bytes / 1e6)} MB ${what} split and stored (abstract_domains=event,severity, memory store)`,
        how: `store MB: the memory store’s stats().bytes after the same call to the same proxy in the bench process (the rows’ JSON and the unread abstract pages, UTF-8); every redeemed cell checked against the upstream’s. The peak is the worst of ${runs} run${runs === 1 ? '' : 's'}, each in a fresh proxy process, above the lowest idle RSS of the runs; "each run" lists every run's peak above that idle / store, and its own idle`,
        values: {
          'table MB': round(bytes / 1e6),
          rows: stored.rows,
          'store entries': stored.entries,
          'store MB': round(stored.bytes / 1e6),
          'idle RSS MB': round(idle / 1e6),
          'peak RSS above idle MB': round(peakAbove / 1e6),
          'peak above idle / table size': round(peakAbove / bytes),
          'peak above idle / store': round(peakAbove / stored.bytes),
          'each run': peaks
            .map(
              (run) =>
                `${round((run.peak - idle) / stored.bytes)} (idle ${round(run.idle / 1e6)} MB)`,
            )
            .join(', '),
          'RSS after, above idle MB': round((worst.after - idle) / 1e6),
          'call ms': round(worst.ms),
        },
        // Judged at full size only: a few megabytes are below the young generation and the
        // heap's growth steps, which a peak counts whatever the table (2.5× for a 4 MB CSV).
        ...(!quick && {
          target: 'peak above idle ≤ 2.2 × store, in every run',
          met: peakAbove <= 2.2 * stored.bytes,
        }),
      });
    };
    await measure('rows', quick ? 10 : 50, 'JSON table');
    await measure('csv', quick ? 4 : 20, 'CSV of short rows');
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
  }
  return out;
}

const SESSIONS_SECTION =
  '7d. @s2sp/proxy: an upstream session per client — a new client’s first call, and what an idle one holds';

/** The processes `pid` started (Linux: each of its tasks' `children` file under `/proc`). */
function childPids(pid: number): number[] {
  const tasks = readdirSync(`/proc/${pid}/task`);
  return tasks.flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
      .split(/\s+/)
      .filter(Boolean)
      .map(Number),
  );
}

/** Spawns `args` with node and resolves with the first match of `pattern` on `stream`. */
async function spawnUntil(
  args: string[],
  stream: 'stdout' | 'stderr',
  pattern: RegExp,
): Promise<{ child: ChildProcess; match: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let seen = '';
  const match = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args[0]} exited (${code}): ${seen}`)));
    child[stream]?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const found = pattern.exec(seen);
      if (found?.[1]) resolve(found[1]);
    });
  });
  // Drained from here on, so that a full pipe never blocks the process.
  child.stdout?.resume();
  child.stderr?.resume();
  return { child, match };
}

/**
 * What an upstream session per client costs (the proxy's default): the proxy in its own process on
 * Streamable HTTP, in front of the bench's table upstream on stdio (a process per client) and on
 * Streamable HTTP (an MCP session per client, the upstream in a process of its own). For each,
 * `clients` new MCP clients connect one after another: (1) a new client's first call (its
 * `initialize` and first `tools/call`, which opens its upstream session) against a call once its
 * session is up; (2) the resident memory each idle client's session adds, in the proxy and in
 * the upstream (the upstream's processes for stdio, the upstream server for HTTP).
 */
export async function proxyUpstreamSessionsBenchmark(quick: boolean): Promise<BenchRow[]> {
  const upstream = fileURLToPath(new URL('./table-upstream.js', import.meta.url));
  const proxyMain = process.env.S2SP_BENCH_PROXY_MAIN ?? bin('@s2sp/proxy', 'dist/main.js');
  const clients = quick ? 3 : 10;
  const out: BenchRow[] = [];
  for (const kind of ['stdio', 'http'] as const) {
    const started: ChildProcess[] = [];
    const open: Client[] = [];
    try {
      let target = ['--', process.execPath, upstream];
      let upstreamPid: number | undefined;
      if (kind === 'http') {
        const server = await spawnUntil([upstream, '--http'], 'stdout', /port (\d+)/);
        started.push(server.child);
        upstreamPid = server.child.pid;
        target = ['--upstream-url', `http://127.0.0.1:${server.match}/mcp`];
      }
      const proxy = await spawnUntil(
        [proxyMain, '--port', '0', '--max-upstream-sessions', String(clients + 2), ...target],
        'stderr',
        /ready mcp=(\S+)/,
      );
      started.push(proxy.child);
      const proxyPid = proxy.child.pid as number;
      const mcpUrl = new URL(proxy.match);
      const upstreamKb = () =>
        upstreamPid !== undefined
          ? residentKb(upstreamPid).rss
          : childPids(proxyPid).reduce((sum, pid) => sum + residentKb(pid).rss, 0);
      const ping = (client: Client) => client.callTool({ name: 'ping', arguments: {} });

      // One client up first, so that what follows is each new client's own cost.
      const warm = await connect(new StreamableHTTPClientTransport(mcpUrl));
      open.push(warm);
      for (let i = 0; i < 20; i++) await ping(warm);
      const before = { proxy: residentKb(proxyPid).rss, upstream: upstreamKb() };
      const first: number[] = [];
      const up: number[] = [];
      for (let i = 0; i < clients; i++) {
        const t = performance.now();
        const client = await connect(new StreamableHTTPClientTransport(mcpUrl));
        open.push(client);
        await ping(client);
        first.push(performance.now() - t);
        for (let j = 0; j < 10; j++) {
          const u = performance.now();
          await ping(client);
          up.push(performance.now() - u);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const after = { proxy: residentKb(proxyPid).rss, upstream: upstreamKb() };
      const firstCall = latency(first);
      const once = latency(up);
      out.push({
        section: SESSIONS_SECTION,
        name: `a new client’s first call, ${kind} upstream, ${clients} clients`,
        how: 'initialize and the first tools/call (which opens the client’s upstream session), then 10 calls once it is up; the proxy and the upstream in processes of their own',
        values: {
          'first call p50 ms': round(firstCall.p50),
          'first call max ms': round(Math.max(...first)),
          'once up, per call p50 ms': round(once.p50),
        },
      });
      out.push({
        section: SESSIONS_SECTION,
        name: `resident memory per idle client, ${kind} upstream`,
        how: `RSS after ${clients} idle clients less RSS before them, divided by ${clients}; the upstream: ${kind === 'stdio' ? 'its processes, one per client' : 'its server process'}`,
        values: {
          'proxy KiB per client': Math.round((after.proxy - before.proxy) / clients),
          'upstream KiB per client': Math.round((after.upstream - before.upstream) / clients),
        },
      });
    } finally {
      await Promise.all(open.map((client) => client.close().catch(() => {})));
      for (const child of started.reverse()) {
        child.kill('SIGTERM');
        if (child.exitCode === null) await once(child, 'exit');
      }
    }
  }
  return out;
}
