// What a measuring run records about itself, so that a figure in a generated file can be traced
// to the run that produced it: when, on which commit (and whether the checkout had uncommitted
// changes), by which command, at which size, on which machine and under which load. The
// reliability suite's global setup and the benchmark runner both call it; the figure generators
// (`scripts/figures.mjs`) print it in the header of each generated section. Plain Node ESM.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

function tryRun(file, args, cwd) {
  try {
    return execFileSync(file, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

const OUTPUTS = ['RELIABILITY.md', 'bench/BENCHMARKS.md', 'reliability/raw', 'bench/raw'];

/** The 1, 5 and 15-minute load averages, two decimals. */
export function loadNow() {
  return loadavg().map((l) => Number(l.toFixed(2)));
}

/**
 * The run's description at its start.
 *
 * @param {{ command: string, size: string, cwd?: string }} options
 */
export function startRun({ command, size, cwd = process.cwd() }) {
  const cpu = cpus();
  // Uncommitted changes to what is measured; the figure files and raw folders a run's `--record`
  // rewrites are outputs, so one recorded section does not mark the next run dirty.
  const status = tryRun(
    'git',
    [
      'status',
      '--porcelain',
      '--untracked-files=no',
      '--',
      ':(top)',
      ...OUTPUTS.map((path) => `:(top,exclude)${path}`),
    ],
    cwd,
  );
  return {
    startedAt: new Date().toISOString(),
    commit: tryRun('git', ['rev-parse', '--short=12', 'HEAD'], cwd) ?? 'unknown',
    dirty: status === undefined ? true : status !== '',
    command,
    size,
    machine: {
      node: process.version,
      platform: `${process.platform} ${release()} ${process.arch}`,
      cpu: (cpu[0]?.model ?? 'unknown').replace(/\s+/g, ' ').trim(),
      cores: cpu.length,
      ramGiB: Math.round(totalmem() / 1024 ** 3),
      redis:
        tryRun('redis-server', ['--version'], cwd)?.match(/v=([\d.]+)/)?.[1] ?? 'not installed',
    },
    loadAverage: { start: loadNow() },
  };
}

/**
 * The run's description at its end: the start's, with the end time and load.
 *
 * @param {ReturnType<typeof startRun>} run
 */
export function endRun(run) {
  return {
    ...run,
    endedAt: new Date().toISOString(),
    loadAverage: { ...run.loadAverage, end: loadNow() },
  };
}

const runKey = (run) => `${run.startedAt} ${run.commit} ${run.command}`;

/**
 * Whether two records name the same run.
 *
 * @param {{ startedAt: string, commit: string, command: string }} a
 * @param {{ startedAt: string, commit: string, command: string }} b
 */
export function sameRun(a, b) {
  return runKey(a) === runKey(b);
}

/**
 * The distinct runs of `runs`, oldest first, and the label a figure file gives each (R1, R2, …).
 *
 * @template {{ startedAt: string, commit: string, command: string }} Run
 * @param {Iterable<Run>} runs
 */
export function labelRuns(runs) {
  const distinct = [];
  for (const run of runs) if (!distinct.some((r) => sameRun(r, run))) distinct.push(run);
  distinct.sort(
    (a, b) => a.startedAt.localeCompare(b.startedAt) || runKey(a).localeCompare(runKey(b)),
  );
  return {
    runs: distinct,
    /** @param {Run} run */
    label: (run) => `R${distinct.findIndex((r) => sameRun(r, run)) + 1}`,
  };
}

/**
 * A start and an end in UTC, as a figure file prints them: the end's date left out when it is the
 * start's.
 *
 * @param {string} start
 * @param {string | undefined} end
 */
export function timeSpan(start, end) {
  const at = (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;
  if (!end) return `${at(start)} → unfinished`;
  return `${at(start)} → ${end.slice(0, 10) === start.slice(0, 10) ? at(end).slice(11) : at(end)}`;
}

/**
 * Runs `main` with the command line's arguments when the module at `moduleUrl` is the program
 * Node was started with: not when it is imported, nor when it is bundled into another program
 * (`bench/dist/run.js` bundles the bench's report module, and there `import.meta.url` is the
 * bundle's). An error ends the process with status 1 and its message on stderr.
 *
 * @param {string} moduleUrl - the module's `import.meta.url`
 * @param {string} fileName - the module's own file name (`report.mjs`)
 * @param {(argv: string[]) => void} main
 */
export function runAsProgram(moduleUrl, fileName, main) {
  if (!moduleUrl.endsWith(`/${fileName}`) || fileURLToPath(moduleUrl) !== process.argv[1]) return;
  try {
    main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${fileName}: ${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  }
}
