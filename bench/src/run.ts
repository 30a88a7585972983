/**
 * `pnpm bench [--quick] [--only=tokens,data-plane,...] [--sizes=1000,...] [--record]`: runs the
 * benchmarks (`--sizes`: only those table sizes in sections 2 and 3, for A/B runs), prints a table
 * and writes `bench/results/latest.json` (the run and each benchmark's rows) and
 * `bench/results/BENCHMARKS.md`. `--record` also copies each benchmark it ran into
 * `bench/raw/<benchmark>.json` and regenerates the committed `bench/BENCHMARKS.md` from
 * `bench/raw/`, keeping the benchmarks it did not run. A benchmark is not a test: a missed target
 * is reported, not fatal; a broken benchmark (an exception, wrong data) exits non-zero.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMemoryStore } from '@s2sp/core/store';
import { startProgressLine } from '@s2sp/test-utils';
import { endRun, loadNow, startRun } from '../../scripts/run-info.mjs';
import { type BenchmarkRecord, recordBenchmarks, renderBenchmarks } from '../scripts/report.mjs';
import { controlPlaneBenchmark } from './control-plane.js';
import { dataPlaneBenchmark } from './data-plane.js';
import { endToEndBenchmark } from './end-to-end.js';
import { type ServerKind, startLab } from './lab.js';
import { largeTablesBenchmark } from './large-tables.js';
import { memoryBenchmark } from './memory.js';
import {
  postgresAvailable,
  proxyBenchmark,
  proxyLargeTableBenchmark,
  proxyUpstreamSessionsBenchmark,
} from './proxy.js';
import { proxyParseBenchmark } from './proxy-parse.js';
import { pythonInteropCheck } from './python-interop.js';
import { pythonReferenceMissing } from './python-reference.js';
import { redisAvailable, startRedisStore } from './redis.js';
import { type BenchRow, formatTable } from './report.js';
import { selectiveFetchBenchmark } from './selective.js';
import { sqlArrowBenchmark } from './sql-arrow.js';
import { sqlTablesBenchmark } from './sql-tables.js';
import type { StoreUnderTest } from './stores.js';
import { streamingBenchmark } from './streaming.js';
import { tokenBenchmark } from './tokens.js';
import { toolListingBenchmark } from './tool-listing.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wanted = (name: string) => !only || only.includes(name);
const runsArg = args.find((a) => a.startsWith('--runs='));
const runs = runsArg ? Number(runsArg.slice('--runs='.length)) : quick ? 1 : 3;
const sizesArg = args.find((a) => a.startsWith('--sizes='));
const sizes = sizesArg
  ? new Set(sizesArg.slice('--sizes='.length).split(',').map(Number))
  : undefined;
const streamArg = args.find((a) => a.startsWith('--stream-mb='));
const streamMb = streamArg ? Number(streamArg.slice('--stream-mb='.length)) : quick ? 20 : 1000;

const memoryStore: StoreUnderTest = {
  name: 'memory',
  make: async () => createMemoryStore({ maxBytes: 8 * 1024 ** 3, maxEntries: 1_000_000 }),
};

// dist/run.js and scripts/report.mjs are both one folder below the package.
const benchDir = fileURLToPath(new URL('../', import.meta.url));
const results = `${benchDir}results/`;

/** What results/latest.json holds: the run, and what each benchmark measured in it. */
interface LatestRun {
  readonly benchmarks: BenchmarkRecord[];
}

/** `--render`: rewrites results/BENCHMARKS.md from results/latest.json (after a report change). */
function render(): void {
  const latest = JSON.parse(readFileSync(`${results}latest.json`, 'utf8')) as LatestRun;
  writeFileSync(
    `${results}BENCHMARKS.md`,
    renderBenchmarks(latest.benchmarks, { source: 'bench/results/latest.json' }),
  );
}

async function main(): Promise<void> {
  if (args.includes('--render')) return render();
  const thisRun = {
    ...startRun({
      command: ['node --expose-gc bench/dist/run.js', ...args].join(' '),
      size: quick ? 'quick' : 'full',
      cwd: benchDir,
    }),
    runsPerMeasurement: runs,
  };
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  const measured: { name: string; rows: BenchRow[]; measured: BenchmarkRecord['measured'] }[] = [];
  const stores: StoreUnderTest[] = [memoryStore];
  const redis = redisAvailable() ? await startRedisStore() : undefined;
  if (redis) stores.push(redis.store);
  else
    notes.push(
      'Redis rows are missing: redis-server was not found on PATH (apt-get install redis-server, or set REDIS_URL).',
    );
  const kinds: ServerKind[] = redis
    ? ['floor', 'raw-redis', 'memory', 'redis', 'redis-peer']
    : ['floor', 'memory'];
  const needLab = wanted('data-plane') || wanted('selective') || wanted('streaming');
  // The Python reference, side by side in sections 2 and 3, when it is here (never in CI).
  const wantsReference = wanted('selective') || wanted('data-plane');
  const pythonMissing = wantsReference ? pythonReferenceMissing() : undefined;
  if (wantsReference && !pythonMissing) {
    kinds.push('python');
    if (wanted('selective')) kinds.push('python-fresh');
  } else if (pythonMissing)
    notes.push(`Python reference rows are missing (sections 2 and 3): ${pythonMissing}.`);
  const lab = needLab ? await startLab(kinds, redis?.server.url) : undefined;
  const sections: [string, () => Promise<BenchRow[]> | BenchRow[]][] = [
    ['tokens', () => tokenBenchmark(quick)],
    // Counts, not timings: the proxy's tools/list on every server of its real-server matrix.
    ['tool-listing', () => toolListingBenchmark()],
    ['data-plane', () => dataPlaneBenchmark(lab as NonNullable<typeof lab>, quick, runs, sizes)],
    [
      'selective',
      () => selectiveFetchBenchmark(lab as NonNullable<typeof lab>, quick, runs, sizes),
    ],
    ['memory', () => memoryBenchmark(stores, quick)],
    ['streaming', () => streamingBenchmark(lab as NonNullable<typeof lab>, streamMb)],
    ['end-to-end', () => endToEndBenchmark(quick)],
    ['control-plane', () => controlPlaneBenchmark(quick)],
    ['proxy', () => (postgresAvailable() ? proxyBenchmark(quick) : [])],
    ['proxy-large', () => proxyLargeTableBenchmark(quick)],
    // The two memory rows of proxy-large alone (a JSON table and a CSV of short rows).
    ['proxy-memory', () => proxyLargeTableBenchmark(quick, true)],
    ['proxy-sessions', () => proxyUpstreamSessionsBenchmark(quick)],
    ['proxy-parse', () => proxyParseBenchmark(quick)],
    ['large-tables', () => largeTablesBenchmark(quick)],
    ['sql-tables', () => sqlTablesBenchmark(quick, stores)],
    ['sql-arrow', () => sqlArrowBenchmark(quick)],
    // Not a speed: the Python reference and ours redeem each other's tokens (skipped without it).
    ['interop', () => pythonInteropCheck()],
  ];
  if (wanted('proxy') && !postgresAvailable()) {
    notes.push('Proxy rows are missing: PostgreSQL was not found (apt-get install postgresql).');
  }
  try {
    for (const [name, run] of sections) {
      if (!wanted(name)) continue;
      const t = performance.now();
      const startedAt = new Date().toISOString();
      const loadAtStart = loadNow();
      process.stdout.write(`running ${name}…`);
      // A section can take minutes: on a terminal its seconds count up on the same line.
      const progress = startProgressLine(`running ${name}…`);
      let sectionRows: BenchRow[];
      try {
        sectionRows = await run();
      } finally {
        progress.stop();
      }
      rows.push(...sectionRows);
      measured.push({
        name,
        rows: sectionRows,
        measured: {
          startedAt,
          endedAt: new Date().toISOString(),
          loadAverage: { start: loadAtStart, end: loadNow() },
        },
      });
      process.stdout.write(` ${Math.round(performance.now() - t)} ms\n`);
    }
  } finally {
    await lab?.close();
    await redis?.server.stop();
  }
  const ended = endRun(thisRun);
  // Each benchmark keeps the run's notes (a missing Redis, Python or PostgreSQL) and its rows' own.
  const benchmarks: BenchmarkRecord[] = measured.map((m) => ({
    benchmark: m.name,
    run: { ...ended, runsPerMeasurement: runs },
    measured: m.measured,
    rows: m.rows,
    notes: [...notes, ...m.rows.filter((r) => r.note).map((r) => `${r.name}: ${r.note}`)],
  }));
  console.log(formatTable(rows));
  mkdirSync(results, { recursive: true });
  writeFileSync(`${results}latest.json`, `${JSON.stringify({ benchmarks }, null, 2)}\n`);
  writeFileSync(
    `${results}BENCHMARKS.md`,
    renderBenchmarks(benchmarks, { source: 'bench/results/latest.json' }),
  );
  if (args.includes('--record')) {
    recordBenchmarks(benchmarks, { benchDir });
    console.log(`\nrecorded ${measured.map((m) => m.name).join(', ')} in bench/raw/`);
  }
  const judged = rows.filter((r) => r.target);
  console.log(
    `\n${judged.filter((r) => r.met).length} of ${judged.length} targets met; results in bench/results/`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
