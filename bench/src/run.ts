/**
 * `pnpm bench [--quick] [--only=tokens,data-plane,...] [--sizes=1000,...]`: runs the benchmarks
 * (`--sizes`: only those table sizes in sections 2 and 3, for A/B runs), prints a table and
 * writes `bench/results/latest.json` and `bench/results/BENCHMARKS.md`. A benchmark is not a
 * test: a missed target is reported, not fatal; a broken benchmark (an exception, wrong data)
 * exits non-zero.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createMemoryStore } from '@s2sp/core/store';
import { startProgressLine } from '@s2sp/test-utils';
import { APPENDIX } from './appendix.js';
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
import { type BenchReport, type BenchRow, formatMarkdown, formatTable } from './report.js';
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
const loadNow = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

const memoryStore: StoreUnderTest = {
  name: 'memory',
  make: async () => createMemoryStore({ maxBytes: 8 * 1024 ** 3, maxEntries: 1_000_000 }),
};

/** `--render`: rewrites results/BENCHMARKS.md from results/latest.json (after a report change). */
function render(): void {
  const results = fileURLToPath(new URL('../results/', import.meta.url));
  const report = JSON.parse(readFileSync(`${results}latest.json`, 'utf8')) as BenchReport;
  writeFileSync(`${results}BENCHMARKS.md`, formatMarkdown({ ...report, appendix: APPENDIX }));
}

async function main(): Promise<void> {
  if (args.includes('--render')) return render();
  const started = new Date();
  const loadAtStart = loadNow();
  const rows: BenchRow[] = [];
  const notes: string[] = [];
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
      process.stdout.write(`running ${name}…`);
      // A section can take minutes: on a terminal its seconds count up on the same line.
      const progress = startProgressLine(`running ${name}…`);
      try {
        rows.push(...(await run()));
      } finally {
        progress.stop();
      }
      process.stdout.write(` ${Math.round(performance.now() - t)} ms\n`);
    }
  } finally {
    await lab?.close();
    await redis?.server.stop();
  }
  for (const row of rows) if (row.note) notes.push(`${row.name}: ${row.note}`);
  const cpu = cpus()[0];
  const report: BenchReport = {
    startedAt: started.toISOString(),
    quick,
    machine: {
      cpu: cpu ? `${cpu.model} × ${cpus().length}` : 'unknown',
      memory: `${Math.round(totalmem() / 1024 ** 3)} GiB`,
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      'load average (1, 5, 15 min) at start': loadAtStart,
      'load average at end': loadNow(),
      'runs per measurement': runs,
    },
    rows,
    notes,
    appendix: APPENDIX,
  };
  console.log(formatTable(rows));
  const results = fileURLToPath(new URL('../results/', import.meta.url));
  mkdirSync(results, { recursive: true });
  writeFileSync(`${results}latest.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${results}BENCHMARKS.md`, formatMarkdown(report));
  const judged = rows.filter((r) => r.target);
  console.log(
    `\n${judged.filter((r) => r.met).length} of ${judged.length} targets met; results in bench/results/`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
