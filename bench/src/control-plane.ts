import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PROTOCOL } from '@s2sp/core';
import { createS2SPServer, silentLogger } from '@s2sp/server';
import { generateRows } from '@s2sp/test-utils';
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

/** One kind of call: its label, the tool, its arguments and the request's `_meta`. */
type Call = readonly [
  label: string,
  tool: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
];

const SYNC_ARGS = { abstract_domains: 'event,severity', mode: 'sync' };

/**
 * The calls compared: the plain tool call, S2SP's two modes, the sync call of a host that reads
 * the body from `structuredContent` (PROTOCOL §7.11: the rows cross the wire once), and two
 * tools that return the §2 sync call's answer without S2SP: as it is (pre-rendered), the least a
 * call carrying those bytes costs (§2 sends the sync object twice, as the text and as
 * `structuredContent`), and with its text written on every call (`JSON.stringify` of the object
 * it holds), the least any server answering a sync call from rows it has just been given does.
 */
const CALLS: readonly Call[] = [
  ['plain (no abstract_domains)', 'get_rows', {}],
  ['S2SP async, 2 abstract columns', 'get_rows', { abstract_domains: 'event,severity' }],
  ['S2SP sync, 2 abstract columns', 'get_rows', SYNC_ARGS],
  [
    'S2SP sync, the host reads the body from structuredContent (§7.11)',
    'get_rows',
    SYNC_ARGS,
    { [PROTOCOL.syncBodyMeta]: 'structured' },
  ],
  ["the sync call's answer, pre-rendered (no S2SP)", 'sync_answer', {}],
  ["the sync call's answer, its text written per call (no S2SP)", 'sync_answer_written', {}],
];
const SYNC = 2;
const SYNC_DECLARED = 3;
const SYNC_TARGET = 'p50 ≤ 1.1× the plain call (issue 41)';
const SYNC_ANSWER = 4;
const SYNC_WRITTEN = 5;

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
 * The six calls take turns in blocks (every client makes a few calls of one kind, then of the
 * next, in a rotating order) after a warm-up block of each, so that JIT warm-up, the heap the
 * async results fill and the machine's load fall on all of them alike. A block runs one kind of call
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
  // One sync answer, taken before the blocks, returned as it is by `sync_answer`, and with its
  // text written anew on each call by `sync_answer_written`.
  let syncAnswer: Record<string, unknown> = { content: [] };
  server.use((mcp) => {
    mcp.registerTool(
      'sync_answer',
      { description: 'a recorded answer' },
      () => syncAnswer as never,
    );
    mcp.registerTool(
      'sync_answer_written',
      { description: 'a recorded answer, its text written per call' },
      () =>
        ({
          ...syncAnswer,
          content: [
            { type: 'text', text: JSON.stringify(syncAnswer.structuredContent) },
            ...(syncAnswer.content as unknown[]).slice(1),
          ],
        }) as never,
    );
  });
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
        const first = connected[0] as EraClient;
        const recorded = await first.callTool({
          name: 'get_rows',
          arguments: SYNC_ARGS,
        });
        syncAnswer = {
          content: recorded.content,
          structuredContent: recorded.structuredContent,
          ...(recorded._meta && { _meta: recorded._meta }),
        };
        const block = async (kind: number, into?: Collected) => {
          const [, name, args, meta] = CALLS[kind] as Call;
          const cpu = process.cpuUsage();
          const started = performance.now();
          await Promise.all(
            connected.map(async (client) => {
              for (let i = 0; i < perBlock; i++) {
                const t = performance.now();
                const result = await client.callTool({
                  name,
                  arguments: args,
                  ...(meta && { _meta: meta }),
                });
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
        const answer = collected[SYNC_ANSWER] as Collected;
        const answerP50 = latency(answer.samples).p50;
        const answerCpu = answer.cpuUs / answer.samples.length;
        const written = collected[SYNC_WRITTEN] as Collected;
        const writtenP50 = latency(written.samples).p50;
        const writtenCpu = written.cpuUs / written.samples.length;
        CALLS.forEach(([label], kind) => {
          const { samples, seconds, cpuUs } = collected[kind] as Collected;
          const { p50, p99 } = latency(samples);
          const cpu = cpuUs / samples.length;
          const sameBytes: Record<string, string> =
            kind === SYNC
              ? {
                  'vs same answer p50': `${round(p50 / answerP50)}×`,
                  'vs same answer CPU': `${round(cpu / answerCpu)}×`,
                  'vs same answer, text written p50': `${round(p50 / writtenP50)}×`,
                  'vs same answer, text written CPU': `${round(cpu / writtenCpu)}×`,
                }
              : {};
          out.push({
            section: SECTION,
            name: `${era}, ${rows.length} rows, ${clients} client${clients > 1 ? 's' : ''}: ${label}`,
            how: 'server and SDK clients in the orchestrator process, the six calls in turns (ratios between them only)',
            values: {
              'calls/s': round(samples.length / seconds),
              'p50 ms': round(p50),
              'p99 ms': round(p99),
              'vs plain p50': `${round(p50 / plainP50)}×`,
              'CPU ms/call': round(cpu / 1000),
              'vs plain CPU': `${round(cpu / plainCpu)}×`,
              ...sameBytes,
            },
            // Issue 41's target, on both sync calls: the §2 one carries its rows twice.
            ...(kind === SYNC || kind === SYNC_DECLARED
              ? { target: SYNC_TARGET, met: p50 / plainP50 <= 1.1 }
              : {}),
          });
        });
        await Promise.all(connected.map((client) => client.close()));
      }
  } finally {
    await server.close();
  }
  return out;
}
