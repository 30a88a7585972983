import { prepareTable, serializeTable } from '@s2sp/core';
import { concatBytes, renderDataPlaneResponse } from '@s2sp/core/internal';
import { generateRows } from './data.js';
import { type LoadResult, runLoad } from './http-load.js';
import type { BenchRow } from './report.js';
import { startDataPlane, startFloorServer } from './servers.js';
import { median, round } from './stats.js';
import { mintTokens, type StoreUnderTest } from './stores.js';

const SECTION = '2. Data-plane throughput: redeem a whole table (~1 KB rows) over loopback';

interface Plan {
  readonly size: number;
  readonly concurrency: readonly number[];
  readonly requests: (concurrency: number) => number;
}

function plans(quick: boolean): Plan[] {
  if (quick) return [{ size: 1000, concurrency: [1, 16], requests: () => 16 }];
  return [
    { size: 1000, concurrency: [1, 16, 64], requests: (c) => Math.max(200, c * 4) },
    { size: 10_000, concurrency: [1, 16, 64], requests: (c) => Math.max(40, c * 2) },
    // 64 responses of 100 MB in flight would need ~13 GB on each side; 16 shows the trend.
    { size: 100_000, concurrency: [1, 16], requests: (c) => Math.max(6, c) },
  ];
}

function assertAllServed(label: string, result: LoadResult, bodyBytes: number): void {
  const ok = result.statuses[200] ?? 0;
  if (ok !== result.requests || result.bytes !== result.requests * bodyBytes) {
    throw new Error(
      `${label}: expected ${result.requests} × 200 with ${bodyBytes} bytes each, got ${JSON.stringify(result.statuses)} and ${result.bytes} bytes`,
    );
  }
}

function rowValues(result: LoadResult, size: number): Record<string, number> {
  return {
    'rows/s': Math.round((result.requests * size) / result.seconds),
    'MB/s': round(result.bytes / result.seconds / 1e6),
    'p50 ms': round(result.latency.p50),
    'p99 ms': round(result.latency.p99),
  };
}

/**
 * Redeems whole tables of 1k, 10k and 100k rows through the real data plane, with each store, at
 * several concurrencies — a fresh token per request, as in real use — and in the same run the
 * physical floor: a bare `node:http` server sending the same bytes, and in-process
 * `JSON.stringify` of the same rows. Target: memory store ≥ 60% of the floor's MB/s at 10k and
 * 100k rows.
 */
export async function dataPlaneBenchmark(
  stores: readonly StoreUnderTest[],
  quick: boolean,
): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  for (const plan of plans(quick)) {
    const rows = generateRows(plan.size);
    const table = prepareTable(rows);
    const stored = serializeTable(table);
    const body = concatBytes(
      renderDataPlaneResponse(
        { columns: stored.columns, tableRows: stored.rows.length, rows: stored.rows },
        {},
        undefined,
      ),
    );
    const bodyBytes = body.byteLength;
    const label = `${plan.size.toLocaleString('en-US')} rows (${round(bodyBytes / 1e6)} MB)`;

    const withIds = rows.map((row, i) => ({ _row_id: i, ...row }));
    const times: number[] = [];
    for (let i = 0; i < (quick ? 2 : 5); i++) {
      const started = performance.now();
      JSON.stringify(withIds);
      times.push(performance.now() - started);
    }
    out.push({
      section: SECTION,
      name: `${label}: floor, in-process JSON.stringify`,
      values: {
        'MB/s': round(bodyBytes / (median(times) / 1000) / 1e6),
        'p50 ms': round(median(times)),
      },
    });

    const floor = await startFloorServer(body);
    const floorMBs = new Map<number, number>();
    try {
      for (const concurrency of plan.concurrency) {
        const result = await runLoad({
          port: floor.port,
          path: () => '/floor',
          body: '{}',
          concurrency,
          requests: plan.requests(concurrency),
        });
        assertAllServed('floor', result, bodyBytes);
        floorMBs.set(concurrency, result.bytes / result.seconds / 1e6);
        out.push({
          section: SECTION,
          name: `${label}: floor, bare node:http, c=${concurrency}`,
          values: rowValues(result, plan.size),
        });
      }
    } finally {
      await floor.close();
    }

    for (const store of stores) {
      const instance = await store.make();
      const server = await startDataPlane(instance);
      try {
        // Redis copies every table it caches: at 100k rows (118 MB each) one request at a time.
        const levels = store.name !== 'memory' && plan.size >= 100_000 ? [1] : plan.concurrency;
        for (const concurrency of levels) {
          const requests =
            store.name !== 'memory' && plan.size >= 100_000 ? 4 : plan.requests(concurrency);
          const tokens = await mintTokens(instance, stored, requests);
          const result = await runLoad({
            port: server.port,
            path: (i) => `/s2sp/data/${tokens[i]}`,
            body: '{}',
            concurrency,
            requests,
          });
          assertAllServed(store.name, result, bodyBytes);
          const ratio =
            result.bytes / result.seconds / 1e6 / (floorMBs.get(concurrency) ?? Number.NaN);
          const judged = store.name === 'memory' && plan.size >= 10_000;
          out.push({
            section: SECTION,
            name: `${label}: ${store.name} store, c=${concurrency}`,
            values: { ...rowValues(result, plan.size), 'vs floor': `${Math.round(ratio * 100)}%` },
            ...(judged && { target: 'memory ≥ 60% of floor', met: ratio >= 0.6 }),
          });
        }
      } finally {
        await server.close();
        await instance.close();
        await store.flush?.();
      }
    }
  }
  return out;
}
