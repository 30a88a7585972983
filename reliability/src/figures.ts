/**
 * The figure recorder: every reliability test writes the numbers it measured as one JSON line in
 * `results/figures.jsonl` (`figures.soak.jsonl` with `SOAK=1`), and the global setup describes the
 * run (commit, command, machine, load) in `results/run.json` (`run.soak.json`);
 * `scripts/report.mjs` turns them into `results/RELIABILITY.md`, and `--record` copies chosen
 * sections into `reliability/raw/`, from which the committed `RELIABILITY.md` is generated. A
 * global setup empties the file at the start of a run, so one results file always holds one run.
 *
 * @module
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

/**
 * Where this run's figures go: `results/figures.jsonl`, or `results/figures.soak.jsonl` with
 * `SOAK=1`. Two files, so that a CI-size run started while a soak run is going (someone's
 * `pnpm test` in the same checkout) cannot empty or mix into the soak run's figures.
 */
export const FIGURES_FILE: string = join(
  RESULTS,
  process.env.SOAK === '1' ? 'figures.soak.jsonl' : 'figures.jsonl',
);

/** Where this run's description goes, beside {@link FIGURES_FILE}. */
export const RUN_FILE: string = join(
  RESULTS,
  process.env.SOAK === '1' ? 'run.soak.json' : 'run.json',
);

/** One measured figure. */
export interface Figure {
  /**
   * `<group>.<n>`, such as `1.3`: the group is the figure number and picks the report
   * table; `n` orders rows within it.
   */
  readonly id: string;
  /** What was measured, in a sentence a reader of the report understands. */
  readonly title: string;
  /** The measurement. */
  readonly value: number | string | boolean;
  /** Unit of `value` (`ms`, `req/s`, `%`). */
  readonly unit?: string;
  /**
   * The bound the test asserts or judges against, as text (`= 1`, `< 100 ms`). The report cites
   * it as written here, so build it from the same constant the test's assertion uses.
   */
  readonly target?: string;
  /**
   * Whether `value` meets `target`, judged against the bound even in a CI run, where the
   * test itself only asserts a generous bound (timing on a shared CI machine is noisy).
   */
  readonly met?: boolean;
}

/** A figure as stored: with the run mode and the time it was recorded. */
export interface RecordedFigure extends Figure {
  readonly mode: 'ci' | 'soak';
  readonly at: string;
}

/**
 * Appends one figure to {@link FIGURES_FILE}. Each line is written with one `appendFileSync`
 * call, which `O_APPEND` keeps whole even when several test workers record at once.
 *
 * @param figure - the measurement
 * @example
 * ```ts
 * recordFigure({ id: '1.1', title: 'Winners per trial', value: 1, target: '= 1', met: true });
 * ```
 */
export function recordFigure(figure: Figure): void {
  const line: RecordedFigure = {
    ...figure,
    ...(typeof figure.value === 'number' && { value: round(figure.value) }),
    mode: process.env.SOAK === '1' ? 'soak' : 'ci',
    // Not `new Date()`: tests on fake time would stamp their figures with the fake clock.
    at: new Date(performance.timeOrigin + performance.now()).toISOString(),
  };
  mkdirSync(dirname(FIGURES_FILE), { recursive: true });
  appendFileSync(FIGURES_FILE, `${JSON.stringify(line)}\n`);
}

/** Empties the figures file (the global setup calls it once per run). */
export function resetFigures(): void {
  mkdirSync(dirname(FIGURES_FILE), { recursive: true });
  writeFileSync(FIGURES_FILE, '');
}

// Four significant digits are more than any of these measurements can claim.
function round(value: number): number {
  if (!Number.isFinite(value) || Number.isInteger(value)) return value;
  return Number(value.toPrecision(4));
}
