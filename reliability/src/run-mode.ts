/**
 * The two sizes of the suite. `vitest run` (CI) runs every figure at a size that keeps the whole
 * project near a minute on a 2-core machine and asserts only generous timing bounds; `SOAK=1`
 * runs the full sizes (30 s load, 10-minute soak, 10^5 fuzzed bodies…) and asserts the
 * issue's bounds.
 *
 * @module
 */

/** True for `SOAK=1`: full sizes and the strict bounds. */
export const SOAK: boolean = process.env.SOAK === '1';

/**
 * The CI or the soak value of a knob.
 *
 * @param ci - used by a plain `vitest run`
 * @param soak - used with `SOAK=1`
 */
export function bySize<T>(ci: T, soak: T): T {
  return SOAK ? soak : ci;
}

/**
 * Reads a positive number from the environment, for knobs an operator may want to shorten when
 * trying the soak run locally (`SOAK_MINUTES=2`). Anything else falls back.
 *
 * @param name - the variable
 * @param fallback - its default
 */
export function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}
