/** Small statistics helpers for the figures. */

/**
 * The `p`-th percentile of `values` by the nearest-rank method (the value at rank ⌈p/100·n⌉),
 * which is never an interpolated latency that no request actually had.
 *
 * @param values - samples, any order
 * @param p - 0 < p ≤ 100
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** The largest value (NaN for none). */
export function max(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : Math.max(...values);
}

/** Milliseconds since `started` (a `performance.now()` reading). */
export function since(started: number): number {
  return performance.now() - started;
}
