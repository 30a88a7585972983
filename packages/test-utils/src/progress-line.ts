/** A progress line on standard error; see {@link startProgressLine}. */
export interface ProgressLine {
  /** What to show after the label from now on (`1200 of 5000 requests`). */
  update(detail: string): void;
  /** Stops the line; on a terminal the label is left as it was before the line started. */
  stop(): void;
}

/** Options of {@link startProgressLine}. */
export interface ProgressLineOptions {
  /** Nothing is shown for work that ends sooner than this. Default 3000 ms. */
  readonly afterMs?: number;
  /** Where to write. Default `process.stderr`. */
  readonly stream?: NodeJS.WriteStream;
  /** The environment (`CI`, `S2SP_PROGRESS`). Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** On a terminal the line is redrawn every second; elsewhere a line is added every 30 s. */
const TTY_EVERY_MS = 1000;
const LOG_EVERY_MS = 30_000;

/**
 * Shows that long work is still going: after `afterMs`, `label` with the time so far (and the
 * latest `update`) on standard error. Redrawn in place on a terminal; as a plain line every 30 s
 * when `CI` is set or `S2SP_PROGRESS=1`; otherwise (a pipe, a log file) nothing, so captured
 * output stays as it was. `S2SP_PROGRESS=0` turns it off everywhere.
 *
 * @param label - what runs (`running data-plane…`, a test's name)
 */
export function startProgressLine(label: string, options: ProgressLineOptions = {}): ProgressLine {
  const stream = options.stream ?? process.stderr;
  const env = options.env ?? process.env;
  const tty = stream.isTTY === true;
  const wanted = env.S2SP_PROGRESS ?? (env.CI ? '1' : undefined);
  if (wanted === '0' || (!tty && wanted !== '1')) return { update() {}, stop() {} };
  const started = performance.now();
  let detail = '';
  let shown = false;
  const text = () => {
    const seconds = Math.round((performance.now() - started) / 1000);
    return `${label} ${seconds} s${detail ? `, ${detail}` : ''}`;
  };
  const draw = () => {
    shown = true;
    if (tty) stream.write(`\r\x1b[2K${text()}`);
    else stream.write(`${text()}\n`);
  };
  let every: ReturnType<typeof setInterval> | undefined;
  const first = setTimeout(() => {
    draw();
    every = setInterval(draw, tty ? TTY_EVERY_MS : LOG_EVERY_MS);
    every.unref?.();
  }, options.afterMs ?? 3000);
  first.unref?.();
  return {
    update(next) {
      detail = next;
    },
    stop() {
      clearTimeout(first);
      clearInterval(every);
      if (shown && tty) stream.write(`\r\x1b[2K${label}`);
    },
  };
}
