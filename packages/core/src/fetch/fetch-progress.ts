/** What a data-plane fetch has received so far (see `FetchBodyOptions.onProgress`). */
export interface FetchProgress {
  /** Body bytes received. */
  readonly bytes: number;
  /** Rows parsed (a plain JSON answer has none until it is complete). */
  readonly rows: number;
  /** True on the last report, once the body is complete and parsed. */
  readonly done: boolean;
}

/** At most one report per this many ms while the body arrives… */
export const PROGRESS_INTERVAL_MS = 250;
/** …unless this many more bytes arrived since the last one. */
export const PROGRESS_BYTES = 1024 * 1024;

/** Reports a fetch's progress, throttled, with `bytes` strictly increasing from one to the next. */
export interface ProgressThrottle {
  /** The totals before the chunk just read: reported when due. */
  update(bytes: number, rows: number): void;
  /** The final totals: always reported (once). */
  finish(bytes: number, rows: number): void;
}

/**
 * A throttle for `onProgress`: reports at most every {@link PROGRESS_INTERVAL_MS} or every
 * {@link PROGRESS_BYTES}, so a fast body does not flood the caller (an MCP client gets one
 * notification per report). `update` is given the totals before the latest chunk, so every report
 * before the final one has fewer bytes than it: progress reported over MCP must increase.
 *
 * @param onProgress - the caller's callback; `undefined` gives a throttle that does nothing
 */
export function progressThrottle(
  onProgress: ((progress: FetchProgress) => void) | undefined,
): ProgressThrottle {
  if (!onProgress) return { update() {}, finish() {} };
  let lastAt = performance.now();
  let lastBytes = 0;
  let finished = false;
  return {
    update(bytes, rows) {
      if (finished || bytes <= lastBytes) return;
      const now = performance.now();
      if (now - lastAt < PROGRESS_INTERVAL_MS && bytes - lastBytes < PROGRESS_BYTES) return;
      lastAt = now;
      lastBytes = bytes;
      onProgress({ bytes, rows, done: false });
    },
    finish(bytes, rows) {
      if (finished) return;
      finished = true;
      onProgress({ bytes, rows, done: true });
    },
  };
}
