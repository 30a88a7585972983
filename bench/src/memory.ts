import { memoryUsage } from 'node:process';
import { generateToken, tokenStorageKey } from '@s2sp/core';
import type { StoredTable } from '@s2sp/core/store';
import { prepareTable, serializeTable } from '@s2sp/server';
import { generateRows } from '@s2sp/test-utils';
import type { BenchRow } from './report.js';
import { collectGarbage, round } from './stats.js';
import type { StoreUnderTest } from './stores.js';

const SECTION = '4. Memory per byte of cached JSON';

function usage() {
  collectGarbage();
  const m = memoryUsage();
  // `external` already includes `arrayBuffers` (Node's Buffers and typed arrays).
  return { rss: m.rss, heap: m.heapUsed, external: m.external };
}

/**
 * Caches several tables and measures what the process (memory store) or Redis (`used_memory`)
 * holds per byte of cached JSON, after the tool's own rows are gone. Target for the memory store:
 * heap + buffers growth ≤ 2× the JSON.
 */
export async function memoryBenchmark(
  stores: readonly StoreUnderTest[],
  quick: boolean,
): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  const tables = quick ? 2 : 8;
  const rowsPerTable = quick ? 2000 : 20_000;
  for (const store of stores) {
    const instance = await store.make();
    try {
      const before = usage();
      const redisBefore = await store.usedMemory?.();
      let jsonBytes = 0;
      for (let t = 0; t < tables; t++) {
        // Each table is built, cached and dropped, as a resource tool call does.
        let stored: StoredTable | undefined = serializeTable(
          prepareTable(generateRows(rowsPerTable, 1000 + t)),
        );
        for (const row of stored.rows) jsonBytes += Buffer.byteLength(row) + 1;
        await instance.put(await tokenStorageKey(generateToken()), stored, { ttlMs: 600_000 });
        stored = undefined;
      }
      const after = usage();
      const stats = await instance.stats();
      if (stats.entries !== tables)
        throw new Error(`${store.name}: expected ${tables} entries, found ${stats.entries}`);
      if (store.usedMemory && redisBefore !== undefined) {
        const perByte = ((await store.usedMemory()) - redisBefore) / jsonBytes;
        out.push({
          section: SECTION,
          name: `${store.name} store: Redis used_memory`,
          how: 'store in the orchestrator process, Redis INFO used_memory before and after',
          values: {
            'MB cached JSON': round(jsonBytes / 1e6),
            'bytes per JSON byte': round(perByte),
          },
        });
      } else {
        const heapAndBuffers =
          (after.heap - before.heap + (after.external - before.external)) / jsonBytes;
        const rss = (after.rss - before.rss) / jsonBytes;
        out.push({
          section: SECTION,
          name: `${store.name} store: heap + buffers`,
          how: 'store in the orchestrator process (--expose-gc), heap and external memory before and after',
          values: {
            'MB cached JSON': round(jsonBytes / 1e6),
            'bytes per JSON byte': round(heapAndBuffers),
            'RSS per JSON byte': round(rss),
          },
          target: '≤ 2× the JSON',
          met: heapAndBuffers <= 2,
        });
      }
    } finally {
      await instance.close();
      await store.flush?.();
    }
  }
  return out;
}
