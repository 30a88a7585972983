#!/usr/bin/env node
// The benchmark figures as Markdown, from records only. Plain Node ESM, no build: the root's
// `pnpm figures` and the check in `pnpm test` run it without building, and `bench/src/run.ts`
// bundles it for the report of a run.
//
// A run (`node --expose-gc bench/dist/run.js …`) writes bench/results/latest.json: the run (commit,
// command, size, machine, load) and, per benchmark (`--only` name), its rows, notes and the load
// while it ran. This script renders such records; it never measures.
//
//   node bench/scripts/report.mjs --record [--only=tokens,data-plane]
//       copies the named benchmarks of the last run (default: all it measured) into
//       bench/raw/<benchmark>.json, then regenerates the committed bench/BENCHMARKS.md from
//       bench/raw/ — one benchmark re-measured, the others kept (`run.js --record` does the same
//       right after a run)
//   node bench/scripts/report.mjs --publish
//       regenerates bench/BENCHMARKS.md from bench/raw/ alone (`pnpm figures` does this and
//       RELIABILITY.md; `pnpm test` fails when the committed file differs from it)
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { labelRuns, runAsProgram, timeSpan } from '../../scripts/run-info.mjs';

/** The bench package's folder. */
export const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The command that regenerates the committed file, as the header and the check cite it. */
export const BENCHMARKS_COMMAND = 'pnpm figures';

const HOW =
  'How: every server under test (the bare `node:http` floor, the raw-Redis reference, the data plane over each store) runs in a process of its own, and the load generator in another one; the orchestrating process only sends instructions and collects numbers. The floors are measured in the same run as the rows compared with them. A share of a floor above 100% means the floor run was disturbed (other work on the machine), so it is reported as a harness error, never as a result, and a target judged on it counts as missed.';

const SIZES = {
  full: 'full size',
  quick:
    'quick size (`--quick`: smaller tables, fewer requests and one run per measurement; the full size was not recorded)',
};

function formatValue(value) {
  return typeof value === 'number'
    ? value.toLocaleString('en-US', { maximumFractionDigits: 3 })
    : value;
}

const cell = (value) =>
  String(value ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');

// "1b. The token estimator" → [1, 'b']: sections in the order of their numbers, unnumbered last.
function titleOrder(title) {
  const match = /^(\d+)([a-z]?)/.exec(title);
  return match ? [Number(match[1]), match[2] ?? ''] : [Number.POSITIVE_INFINITY, title];
}
function byTitle(a, b) {
  const [an, as] = titleOrder(a);
  const [bn, bs] = titleOrder(b);
  return an - bn || String(as).localeCompare(String(bs)) || a.localeCompare(b);
}

function machine(run) {
  const m = run.machine;
  return `Node ${m.node} · ${m.platform} · ${m.cpu} × ${m.cores} cores · ${m.ramGiB} GiB RAM · redis-server ${m.redis}`;
}

function table(rows) {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r.values)))];
  const hasTarget = rows.some((r) => r.target);
  const hasHow = rows.some((r) => r.how);
  const out = [
    `| | ${columns.join(' | ')}${hasTarget ? ' | target | met |' : ' |'}${hasHow ? ' how measured |' : ''}`,
    `|---|${columns.map(() => '---:').join('|')}|${hasTarget ? '---|---|' : ''}${hasHow ? '---|' : ''}`,
  ];
  for (const row of rows) {
    const cells = columns.map((c) =>
      row.values[c] === undefined ? '' : cell(formatValue(row.values[c])),
    );
    out.push(
      `| ${cell(row.name)} | ${cells.join(' | ')} |${hasTarget ? ` ${cell(row.target ?? '')} | ${row.target ? (row.met ? 'yes' : '**no**') : ''} |` : ''}${hasHow ? ` ${cell(row.how ?? '')} |` : ''}`,
    );
  }
  return out;
}

/**
 * Reads the raw folder: one record per `<benchmark>.json`.
 *
 * @param {string} [dir]
 */
export function readBenchRaw(dir = join(BENCH_DIR, 'raw')) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
}

/**
 * BENCHMARKS.md from benchmark records alone: the same records give the same bytes (nothing here
 * reads the clock, the machine or the checkout).
 *
 * @param {object[]} benchmarks records `{ benchmark, run, measured, rows, notes }`
 * @param {{ source?: string }} [options] where the records are, for the header
 */
export function renderBenchmarks(benchmarks, { source = 'bench/raw/<benchmark>.json' } = {}) {
  const records = [...benchmarks].sort((a, b) => a.benchmark.localeCompare(b.benchmark));
  const { runs, label } = labelRuns(records.map((r) => r.run));
  const rows = records.flatMap((r) => r.rows);
  const judged = rows.filter((r) => r.target);

  const out = [
    '# S2SP benchmarks',
    '',
    `Generated from the raw results in \`${source}\` by \`${BENCHMARKS_COMMAND}\` (\`bench/scripts/report.mjs\`), not written by hand; \`pnpm test\` fails when this file differs from what the command makes. Each benchmark names the run that measured it. Re-measure one benchmark and record it, keeping the others: \`pnpm build && node --expose-gc bench/dist/run.js --only=<benchmark> --record\` (add \`--quick\` for the small size). Comparisons made by hand and the notes of past performance work (other commits, other harnesses) are in \`bench/NOTES.md\`, not here.`,
    '',
    'Ratios are the numbers to read: absolute times depend on the machine and its load (the load averages of each run below; rows that time something may also give the 1-minute load when they were measured).',
    '',
    HOW,
    '',
    `**${judged.filter((r) => r.met).length} of ${judged.length}** rows with a target met it.`,
    '',
    '## Runs',
    '',
    `${runs.length} ${runs.length === 1 ? 'run' : 'runs'} recorded the ${records.length} benchmarks below.`,
    '',
    '| Benchmark | Run | Size | Runs per measurement | Commit | Measured (UTC) | Load average (1, 5, 15 min) at start → end | Command |',
    '|---|---|---|---:|---|---|---|---|',
  ];
  for (const record of records) {
    const run = record.run;
    out.push(
      `| \`${record.benchmark}\` | ${label(run)} | ${run.size} | ${run.runsPerMeasurement ?? ''} | ${run.commit}${run.dirty ? ' + uncommitted changes' : ''} | ${timeSpan(record.measured.startedAt, record.measured.endedAt)} | ${record.measured.loadAverage.start.join(', ')} → ${(record.measured.loadAverage.end ?? []).join(', ')} | \`${cell(run.command)}\` |`,
    );
  }
  out.push('');
  for (const m of [...new Set(runs.map(machine))]) {
    const on = runs.filter((run) => machine(run) === m).map(label);
    out.push(`**Machine** (${on.join(', ')}): ${m}`, '');
  }

  const titles = [...new Set(rows.map((r) => r.section))].sort(byTitle);
  for (const title of titles) {
    out.push(`## ${title}`, '');
    for (const record of records) {
      const list = record.rows.filter((r) => r.section === title);
      if (list.length === 0) continue;
      out.push(
        `_Benchmark \`${record.benchmark}\`, run ${label(record.run)}, ${SIZES[record.run.size] ?? `${record.run.size} size`}._`,
        '',
        ...table(list),
        '',
      );
    }
  }
  const empty = records.filter((r) => r.rows.length === 0);
  if (empty.length > 0) {
    out.push('## Benchmarks that measured nothing', '');
    for (const record of empty)
      out.push(`- \`${record.benchmark}\` (run ${label(record.run)}): no rows; see the notes.`);
    out.push('');
  }
  const notes = records.flatMap((record) =>
    [...new Set(record.notes)].map((note) => `- \`${record.benchmark}\`: ${note}`),
  );
  if (notes.length > 0) out.push('## Notes', '', ...notes, '');
  return `${out.join('\n').trimEnd()}\n`;
}

/**
 * Writes benchmark records into the raw folder and regenerates BENCHMARKS.md from the folder.
 *
 * @param {object[]} benchmarks records of one run
 * @param {{ only?: string[], benchDir?: string }} [options]
 * @returns {string[]} the benchmarks written
 */
export function recordBenchmarks(benchmarks, { only, benchDir = BENCH_DIR } = {}) {
  const wanted = only ?? benchmarks.map((b) => b.benchmark);
  const missing = wanted.filter((name) => !benchmarks.some((b) => b.benchmark === name));
  if (missing.length > 0)
    throw new Error(
      `the run did not measure ${missing.join(', ')}: run it with --only, then record.`,
    );
  const rawDir = join(benchDir, 'raw');
  mkdirSync(rawDir, { recursive: true });
  for (const record of benchmarks.filter((b) => wanted.includes(b.benchmark)))
    writeFileSync(join(rawDir, `${record.benchmark}.json`), `${JSON.stringify(record, null, 2)}\n`);
  writeFileSync(join(benchDir, 'BENCHMARKS.md'), renderBenchmarks(readBenchRaw(rawDir)));
  return wanted;
}

function main(argv) {
  const only = argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  if (argv.includes('--record')) {
    const latest = join(BENCH_DIR, 'results', 'latest.json');
    if (!existsSync(latest))
      throw new Error(`${latest} does not exist: run the benchmarks first (pnpm bench --only=…).`);
    const report = JSON.parse(readFileSync(latest, 'utf8'));
    if (!Array.isArray(report.benchmarks))
      throw new Error(
        `${latest} is from a run before benchmarks were recorded one by one: run again.`,
      );
    const written = recordBenchmarks(report.benchmarks, { only });
    process.stdout.write(
      `recorded ${written.join(', ')} in bench/raw/; wrote bench/BENCHMARKS.md\n`,
    );
    return;
  }
  if (argv.includes('--publish')) {
    writeFileSync(join(BENCH_DIR, 'BENCHMARKS.md'), renderBenchmarks(readBenchRaw()));
    process.stdout.write('wrote bench/BENCHMARKS.md\n');
    return;
  }
  throw new Error(
    'give --record [--only=…] or --publish (see the comment at the top of the file).',
  );
}

runAsProgram(import.meta.url, 'report.mjs', main);
