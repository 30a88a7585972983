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

/**
 * The cost S2SP adds to a tool call — projection, `_row_id`, caching and token minting — measured
 * as the same call with and without `abstract_domains`, at 1 and 16 concurrent clients, for a
 * client of each protocol era.
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
        const calls = quick ? 10 : 80;
        const baseline = new Map<string, number>();
        for (const [label, args] of [
          ['plain (no abstract_domains)', {}],
          ['S2SP async, 2 abstract columns', { abstract_domains: 'event,severity' }],
          ['S2SP sync, 2 abstract columns', { abstract_domains: 'event,severity', mode: 'sync' }],
        ] as const) {
          const samples: number[] = [];
          const started = performance.now();
          await Promise.all(
            connected.map(async (client) => {
              for (let i = 0; i < calls; i++) {
                const t = performance.now();
                const result = await client.callTool({ name: 'get_rows', arguments: args });
                if (result.isError)
                  throw new Error(`control-plane call failed: ${JSON.stringify(result.content)}`);
                samples.push(performance.now() - t);
              }
            }),
          );
          const seconds = (performance.now() - started) / 1000;
          const { p50, p99 } = latency(samples);
          if (label.startsWith('plain')) baseline.set('p50', p50);
          out.push({
            section: SECTION,
            name: `${era}, ${rows.length} rows, ${clients} client${clients > 1 ? 's' : ''}: ${label}`,
            how: 'server and SDK clients in the orchestrator process (ratios between the three calls only)',
            values: {
              'calls/s': round(samples.length / seconds),
              'p50 ms': round(p50),
              'p99 ms': round(p99),
              'vs plain p50': `${round(p50 / (baseline.get('p50') ?? p50))}×`,
            },
          });
        }
        await Promise.all(connected.map((client) => client.close()));
      }
  } finally {
    await server.close();
  }
  return out;
}
