/**
 * Parsing that gives the event loop to others. One proxy serves every client from one thread: a
 * parse of an upstream's large table that ran to its end in one go would hold every other
 * client's calls, health checks and redemptions until it finished. So each parser is written as
 * a generator whose `yield`s mark where it may pause; {@link runInSlices} runs it in slices of a
 * few milliseconds with the loop served between them, {@link runNow} runs it to its end at once
 * (small texts, tests). One parser, two ways of running it.
 *
 * @module
 */

/** A parse that may pause at each `yield`, and returns `T`. */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to their end without pausing. */
export function runNow<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** How long a slice runs before the loop is served, in ms. */
export const SLICE_MS = 8;

const served = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs `steps`, serving the event loop (I/O and timers) whenever a slice has taken
 * {@link SLICE_MS}.
 */
export async function runInSlices<T>(steps: Steps<T>): Promise<T> {
  let start = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - start >= SLICE_MS) {
      await served();
      start = performance.now();
    }
  }
}

/**
 * Counts a parser's work between pauses: `due(units)` is true once about {@link PAUSE_EVERY}
 * units (characters, cells, rows) were done since the last pause, so a parser pauses often enough
 * to keep slices short and seldom enough that pausing costs nothing measurable.
 */
export function pacer(): { due(units?: number): boolean } {
  let done = 0;
  return {
    due(units = 1) {
      done += units;
      if (done < PAUSE_EVERY) return false;
      done = 0;
      return true;
    },
  };
}

/** Units of work between two pauses. */
export const PAUSE_EVERY = 16_384;
