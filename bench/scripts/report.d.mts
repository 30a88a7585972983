// Types of report.mjs, for bench/src/run.ts (which bundles it) and the figures check.
import type { RunInfo } from '../../scripts/run-info.mjs';

/** One measured line of the report: what a benchmark fills (`BenchRow`) and a raw file keeps. */
export interface RecordedRow {
  /** Which benchmark (section) it belongs to. */
  readonly section: string;
  /** What was measured. */
  readonly name: string;
  /** How it was measured: which processes, which client, how many runs. */
  readonly how?: string;
  /** Measured values, by name (numbers rounded for display). */
  readonly values: Record<string, number | string>;
  /** The target this row is judged against, if any. */
  readonly target?: string;
  /** Whether this run met the target. */
  readonly met?: boolean;
  /** Why a missed target was missed, and what would fix it (goes into BENCHMARKS.md). */
  readonly note?: string;
}

/** One benchmark (an `--only` name) of one run, as `bench/raw/<benchmark>.json` holds it. */
export interface BenchmarkRecord {
  /** The `--only` name. */
  readonly benchmark: string;
  /** The run that measured it, with its runs per measurement. */
  readonly run: RunInfo & { readonly runsPerMeasurement: number };
  /** When this benchmark ran within the run, and the load then. */
  readonly measured: {
    readonly startedAt: string;
    readonly endedAt: string;
    readonly loadAverage: { readonly start: number[]; readonly end: number[] };
  };
  readonly rows: readonly RecordedRow[];
  readonly notes: readonly string[];
}

/** The bench package's folder. */
export declare const BENCH_DIR: string;
/** The command that regenerates the committed file. */
export declare const BENCHMARKS_COMMAND: string;
/** Reads `bench/raw/` (or `dir`). */
export declare function readBenchRaw(dir?: string): BenchmarkRecord[];
/** BENCHMARKS.md from records alone. */
export declare function renderBenchmarks(
  benchmarks: readonly BenchmarkRecord[],
  options?: { source?: string },
): string;
/** Writes records into `<benchDir>/raw/` and regenerates `<benchDir>/BENCHMARKS.md`. */
export declare function recordBenchmarks(
  benchmarks: readonly BenchmarkRecord[],
  options?: { only?: string[]; benchDir?: string },
): string[];
