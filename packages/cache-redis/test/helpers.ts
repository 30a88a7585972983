/**
 * Helpers of this package's tests: unique key prefixes, so stores sharing one Redis never see
 * each other's entries, and a silent logger.
 */
import { randomBytes } from 'node:crypto';
import type { StoreLogger } from '../src/store-logger.js';

/** A prefix no other test uses, such as `t-1f2e3d4c:`. */
export function uniquePrefix(): string {
  return `t-${randomBytes(4).toString('hex')}:`;
}

/** A logger that drops everything. */
export const quietLogger: StoreLogger = { info() {}, warn() {}, error() {} };

/** A logger that keeps every line, as `level message`. */
export function recordingLogger(): StoreLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => lines.push(`info ${message}`),
    warn: (message) => lines.push(`warn ${message}`),
    error: (message) => lines.push(`error ${message}`),
  };
}

/** Polls `check` every 50 ms until it returns true, failing after `timeoutMs`. */
export async function eventually(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.resolve(check()).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
