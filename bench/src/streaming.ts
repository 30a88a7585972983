import type { Lab, ServerKind } from './lab.js';
import { loadAverage } from './lab.js';
import type { BenchRow } from './report.js';
import { round } from './stats.js';

const SECTION = '8. Streaming: redeem a large table as NDJSON, row by row, with bounded memory';

/** Extra memory allowed on either side of a streamed redemption. */
const BOUND_MB = 64;

/**
 * Caches a table of `mb` MB (1 GB in a full run) and redeems it once per store with
 * `fetchBodyRows` (NDJSON, one row at a time) in the load process, while the orchestrator samples
 * the server process's RSS. Reported: the growth of each side's RSS over its level before the
 * redemption (the cached table itself, in the memory store's process, is not extra).
 */
export async function streamingBenchmark(lab: Lab, mb: number): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  for (const kind of ['memory', 'redis'] as ServerKind[]) {
    const server = lab.servers.get(kind);
    if (!server) continue;
    const { rows, bytes } = await server.process.call<{ rows: number; bytes: number }>({
      op: 'prepare-big',
      mb,
    });
    const [token] = await server.process.call<string[]>({ op: 'mint', count: 1 });
    await server.process.call({ op: 'drop-table' });
    const heap = (m: { heapUsed: number; external: number }) => m.heapUsed + m.external;
    const first = await lab.memory(kind);
    const before = first.rss;
    const heapBefore = heap(first);
    let peak = before;
    let heapPeak = heapBefore;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const m = await lab.memory(kind);
        peak = Math.max(peak, m.rss);
        heapPeak = Math.max(heapPeak, heap(m));
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    const result = await lab.client.call<Record<string, number>>({
      op: 'stream',
      url: `http://127.0.0.1:${server.port}/s2sp/data/${token}`,
    });
    sampling = false;
    await sampler;
    peak = Math.max(peak, (await lab.memory(kind)).rss);
    if (result.rows !== rows) throw new Error(`${kind}: streamed ${result.rows} of ${rows} rows`);
    // RSS alone can hide growth (the process reuses pages freed after the table was built), so
    // the larger of RSS growth and heap + buffers growth counts.
    const serverExtra = Math.max(peak - before, heapPeak - heapBefore) / 1e6;
    const clientExtra = ((result.peak as number) - (result.base as number)) / 1e6;
    out.push({
      section: SECTION,
      name: `${kind} store: ${round(bytes / 1e6)} MB, ${rows.toLocaleString('en-US')} rows`,
      how: `server process (data plane, ${kind} store; RSS and heap + buffers sampled every 25 ms over IPC, the larger growth counts) + client process (fetchBodyRows, NDJSON, rows counted and dropped; RSS sampled every 10 ms); 1 run`,
      values: {
        'MB/s': round(bytes / (result.seconds as number) / 1e6),
        'server extra MB': round(serverExtra),
        'client extra MB': round(clientExtra),
        load: loadAverage(),
      },
      target: `≤ ${BOUND_MB} MB extra on each side`,
      met: serverExtra <= BOUND_MB && clientExtra <= BOUND_MB,
    });
    await server.process.call({ op: 'reset' });
  }
  return out;
}
