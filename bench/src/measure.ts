import type { LoadResult } from './http-load.js';
import { type Lab, loadAverage, type ServerKind } from './lab.js';
import { median, round } from './stats.js';

/** Several runs of the same load, summarised. */
export interface Repeated {
  /** Median throughput over the runs, MB/s. */
  readonly mbps: number;
  readonly minMbps: number;
  readonly maxMbps: number;
  /** Median of the runs' median latencies, ms. */
  readonly p50: number;
  /** Worst p99 of the runs, ms. */
  readonly p99: number;
  readonly runs: number;
  /** 1-minute load average when the runs ended. */
  readonly load: number;
}

/**
 * Runs a load `runs` times and checks every answer: all 200, and when `bodyBytes` is given,
 * exactly that many bytes each (a wrong body is a broken benchmark, not a slow one).
 */
export async function repeatLoad(
  lab: Lab,
  kind: ServerKind,
  options: Parameters<Lab['load']>[1],
  runs: number,
  bodyBytes?: number,
): Promise<Repeated> {
  const results: LoadResult[] = [];
  for (let i = 0; i < runs; i++) {
    const result = await lab.load(kind, options);
    const ok = result.statuses[200] ?? 0;
    if (
      ok !== result.requests ||
      (bodyBytes !== undefined && result.bytes !== result.requests * bodyBytes)
    ) {
      throw new Error(
        `${kind}: expected ${result.requests} × 200${bodyBytes === undefined ? '' : ` with ${bodyBytes} bytes each`}, got ${JSON.stringify(result.statuses)} and ${result.bytes} bytes`,
      );
    }
    results.push(result);
  }
  const rates = results.map((r) => r.bytes / r.seconds / 1e6);
  return {
    mbps: median(rates),
    minMbps: Math.min(...rates),
    maxMbps: Math.max(...rates),
    p50: median(results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    runs,
    load: loadAverage(),
  };
}

/** Throughput as `median (min–max)` for the report. */
export function formatRate(r: Repeated): string {
  const main = round(r.mbps).toLocaleString('en-US');
  return r.runs > 1 ? `${main} (${round(r.minMbps)}–${round(r.maxMbps)})` : main;
}

/**
 * A share of a floor (or, with `isFloor` false, of a reference such as raw Redis), as a
 * percentage string. Above 100% the floor was not a floor in that run
 * (noise from other work on the machine, or a harness fault): the share is reported as a harness
 * error, never as a result.
 */
export function share(
  value: number,
  floor: number | undefined,
  isFloor = true,
): { text: string; ratio: number; harnessError: boolean } {
  const ratio = floor ? value / floor : Number.NaN;
  // Only a physical floor cannot be beaten; a reference (raw Redis) can.
  const harnessError = isFloor && ratio > 1;
  return {
    text: `${Math.round(ratio * 100)}%${harnessError ? ' (harness error: above the floor)' : ''}`,
    ratio,
    harnessError,
  };
}
