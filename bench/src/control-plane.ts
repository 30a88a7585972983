import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createS2SPServer, silentLogger } from '@s2sp/server';
import { generateRows } from './data.js';
import type { BenchRow } from './report.js';
import { latency, round } from './stats.js';

const SECTION =
  '6. Control-plane overhead: a resource tool call over Streamable HTTP (official SDK client)';

/** A connected client of one protocol era: only its `callTool` and `close` are used. */
type EraClient = Pick<Client, 'callTool' | 'close'>;

/**
 * The two protocol eras a server answers on the same endpoint: 2025-11-25 (initialize, then
 * calls; an SDK v1 client) and 2026-07-28 (no initialize, the `_meta` envelope on every request;
 * an SDK v2 client pinned to it).
 */
const ERAS: [string, (url: URL) => Promise<EraClient>][] = [
  [
    '2025-11-25',
    async (url) => {
      const client = new Client({ name: 'bench', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url));
      return client;
    },
  ],
  [
    '2026-07-28',
    async (url) => {
      const client = new ClientV2(
        { name: 'bench', version: '1' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new TransportV2(url));
      return client as unknown as EraClient;
    },
  ],
];

/** The three calls compared: the plain tool call, then S2SP's two modes. */
const CALLS = [
  ['plain (no abstract_domains)', {}],
  ['S2SP async, 2 abstract columns', { abstract_domains: 'event,severity' }],
  ['S2SP sync, 2 abstract columns', { abstract_domains: 'event,severity', mode: 'sync' }],
] as const;

/** What one call kind collected over the blocks: latencies, wall and CPU time. */
interface Collected {
  readonly samples: number[];
  seconds: number;
  cpuUs: number;
}

/**
 * The cost S2SP adds to a tool call — projection, `_row_id`, caching and token minting — measured
 * as the same call with and without `abstract_domains`, at 1 and 16 concurrent clients, for a
 * client of each protocol era.
 *
 * The three calls take turns in blocks (every client makes a few calls of one kind, then of the
 * next, in a rotating order) after a warm-up block of each, so that JIT warm-up, the heap the
 * async results fill and the machine's load fall on all three alike. A block runs one kind of call
 * alone, so the process's CPU time over it (server and clients, one process) is that call's.
 */
export async function controlPlaneBenchmark(quick: boolean): Promise<BenchRow[]> {
  const rows = generateRows(quick ? 50 : 200);
  const server = createS2SPServer({
    name: 'bench',
    version: '1',
    logger: silentLogger,
    maxCacheBytes: 4 * 1024 ** 3,
    // Every call leaves an unredeemed result and all clients share one address: the per-client
    // quota (default 1,000) would end the run, and it is not what this section measures.
    maxEntriesPerClient: 1_000_000,
  });
  server.resourceTool('get_rows', { description: 'rows' }, () => rows);
  const listening = await server.listen();
  const out: BenchRow[] = [];
  try {
    for (const [era, connect] of ERAS)
      for (const clients of [1, 16]) {
        const connected = await Promise.all(
          Array.from({ length: clients }, () => connect(new URL(listening.mcpUrl))),
        );
        const blocks = quick ? 2 : 8;
        const perBlock = 10;
        const collected: Collected[] = CALLS.map(() => ({ samples: [], seconds: 0, cpuUs: 0 }));
        const block = async (kind: number, into?: Collected) => {
          const args = (CALLS[kind] as (typeof CALLS)[number])[1];
          const cpu = process.cpuUsage();
          const started = performance.now();
          await Promise.all(
            connected.map(async (client) => {
              for (let i = 0; i < perBlock; i++) {
                const t = performance.now();
                const result = await client.callTool({ name: 'get_rows', arguments: args });
                if (result.isError)
                  throw new Error(`control-plane call failed: ${JSON.stringify(result.content)}`);
                into?.samples.push(performance.now() - t);
              }
            }),
          );
          if (!into) return;
          into.seconds += (performance.now() - started) / 1000;
          const used = process.cpuUsage(cpu);
          into.cpuUs += used.user + used.system;
        };
        for (let kind = 0; kind < CALLS.length; kind++) await block(kind);
        for (let b = 0; b < blocks; b++)
          for (let j = 0; j < CALLS.length; j++) {
            const kind = (b + j) % CALLS.length;
            await block(kind, collected[kind]);
          }
        const plain = collected[0] as Collected;
        const plainP50 = latency(plain.samples).p50;
        const plainCpu = plain.cpuUs / plain.samples.length;
        CALLS.forEach(([label], kind) => {
          const { samples, seconds, cpuUs } = collected[kind] as Collected;
          const { p50, p99 } = latency(samples);
          const cpu = cpuUs / samples.length;
          out.push({
            section: SECTION,
            name: `${era}, ${rows.length} rows, ${clients} client${clients > 1 ? 's' : ''}: ${label}`,
            how: 'server and SDK clients in the orchestrator process, the three calls in turns (ratios between the three calls only)',
            values: {
              'calls/s': round(samples.length / seconds),
              'p50 ms': round(p50),
              'p99 ms': round(p99),
              'vs plain p50': `${round(p50 / plainP50)}×`,
              'CPU ms/call': round(cpu / 1000),
              'vs plain CPU': `${round(cpu / plainCpu)}×`,
            },
          });
        });
        await Promise.all(connected.map((client) => client.close()));
      }
  } finally {
    await server.close();
  }
  return out;
}
