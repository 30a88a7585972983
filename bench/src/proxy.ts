import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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
