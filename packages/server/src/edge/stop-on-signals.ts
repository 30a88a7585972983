import type { Logger } from '@s2sp/core';

/** Options for {@link stopOnSignals}. */
export interface StopOnSignalsOptions {
  /** The signals that stop the process. Default `SIGTERM` and `SIGINT`. */
  readonly signals?: readonly NodeJS.Signals[];
  /** Where "stopping" and a failed stop are reported. Default: nowhere. */
  readonly logger?: Logger;
  /** Ends the process; tests replace it. Default `process.exit`. */
  readonly exit?: (code: number) => void;
  /**
   * How long after the first signal a repeat still counts as the same request, in ms. Default
   * 1000: a terminal's Ctrl-C reaches every process of its group, and pnpm, npm and turbo forward
   * it to their child as well, so a program started by one of them gets it twice at once.
   */
  readonly repeatWindowMs?: number;
}

/**
 * The one way an S2SP program ends on a signal (the apps' and `s2sp-proxy`'s `main`): on the
 * first SIGTERM or SIGINT it runs `stop` once — usually `server.shutdown()`, which lets running
 * redemptions and tool calls finish within `shutdownGraceMs` — and exits 0 (1 if `stop` failed).
 * A second signal exits 1 at once, for an operator who will not wait; one within `repeatWindowMs`
 * of the first is the same Ctrl-C relayed by a script runner (`pnpm dev`), and changes nothing.
 *
 * @param stop - closes what the program opened; entries in a shared store must stay
 * @returns the same stop-then-exit, for other reasons to stop (a stdio client closing stdin)
 * @example
 * ```ts
 * const stop = stopOnSignals(async () => {
 *   await server.shutdown();
 *   await store.close();
 * });
 * process.stdin.once('end', stop);
 * ```
 */
export function stopOnSignals(
  stop: () => Promise<void>,
  {
    signals = ['SIGTERM', 'SIGINT'],
    logger,
    exit = process.exit,
    repeatWindowMs = 1000,
  }: StopOnSignalsOptions = {},
): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  let firstSignalAt = Number.NEGATIVE_INFINITY;
  const run = (reason: string): Promise<void> => {
    if (stopping) return stopping;
    logger?.info('stopping', { reason });
    stopping = stop().then(
      () => exit(0),
      (error: unknown) => {
        logger?.error('stop failed', { name: error instanceof Error ? error.name : typeof error });
        exit(1);
      },
    );
    return stopping;
  };
  for (const signal of signals) {
    process.on(signal, () => {
      if (!stopping) {
        firstSignalAt = performance.now();
        void run(signal);
      } else if (performance.now() - firstSignalAt >= repeatWindowMs) exit(1);
    });
  }
  return () => run('requested');
}
