import { prepareTable, serializeTable } from '@s2sp/core';
import { generateRows } from './data.js';
import { runLoad } from './http-load.js';
import type { BenchRow } from './report.js';
import { startDataPlane } from './servers.js';
import { round } from './stats.js';
import { mintTokens, type StoreUnderTest } from './stores.js';

const SECTION = '3. Selective fetch: 10 rows from tables of growing size';

/**
 * Fetches 10 rows (spread over the table) from tables of 100, 10k and 100k rows through the real
 * data plane, a fresh token each time. The cost must follow what is fetched, not what is cached.
 * Target: p50(100k) / p50(100) ≤ 3, for every store.
 */
export async function selectiveFetchBenchmark(
  stores: readonly StoreUnderTest[],
  quick: boolean,
): Promise<BenchRow[]> {
  const sizes = quick ? [100, 10_000] : [100, 10_000, 100_000];
  const requests = quick ? 10 : 60;
  const out: BenchRow[] = [];
  const tables = sizes.map((size) => ({
    size,
    stored: serializeTable(prepareTable(generateRows(size))),
  }));
  for (const store of stores) {
    const instance = await store.make();
    const server = await startDataPlane(instance);
    const p50 = new Map<number, number>();
    try {
      for (const { size, stored } of tables) {
        const rowIds = Array.from({ length: 10 }, (_, i) => Math.floor((i * size) / 10) + (i % 3));
        const tokens = await mintTokens(instance, stored, requests);
        const result = await runLoad({
          port: server.port,
          path: (i) => `/s2sp/data/${tokens[i]}`,
          body: JSON.stringify({ row_ids: rowIds }),
          concurrency: 1,
          requests,
        });
        if ((result.statuses[200] ?? 0) !== requests)
          throw new Error(
            `${store.name}: selective fetch failed: ${JSON.stringify(result.statuses)}`,
          );
        p50.set(size, result.latency.p50);
        out.push({
          section: SECTION,
          name: `${store.name} store, table of ${size.toLocaleString('en-US')} rows`,
          values: {
            'p50 ms': round(result.latency.p50),
            'p99 ms': round(result.latency.p99),
            'bytes/response': Math.round(result.bytes / requests),
          },
        });
        await store.flush?.();
      }
    } finally {
      await server.close();
      await instance.close();
    }
    const largest = sizes.at(-1) as number;
    const ratio = (p50.get(largest) ?? Number.NaN) / (p50.get(100) ?? Number.NaN);
    out.push({
      section: SECTION,
      name: `${store.name} store, p50 ratio ${largest.toLocaleString('en-US')} / 100 rows`,
      values: { ratio: round(ratio) },
      target: 'ratio ≤ 3',
      met: ratio <= 3,
    });
  }
  return out;
}
