// What a measuring run records about itself, so that a figure in a generated file can be traced
// to the run that produced it: when, on which commit (and whether the checkout had uncommitted
// changes), by which command, at which size, on which machine and under which load. The
// reliability suite's global setup and the benchmark runner both call it; the figure generators
// (`scripts/figures.mjs`) print it in the header of each generated section. Plain Node ESM.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem } from 'node:os';

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
