import { describe, expect, it } from 'vitest';
import { type FetchProgress, PROGRESS_BYTES, progressThrottle } from './fetch-progress.js';

describe('progressThrottle', () => {
  it('reports every PROGRESS_BYTES within one interval, bytes increasing, and the final totals once', () => {
    const seen: FetchProgress[] = [];
    const throttle = progressThrottle((progress) => seen.push(progress));
    const chunk = 256 * 1024;
    let bytes = 0;
    for (let i = 0; i < 20; i++) {
      throttle.update(bytes, i);
      bytes += chunk;
    }
    throttle.finish(bytes, 20);
    throttle.finish(bytes, 20);
    const reported = seen.map((p) => p.bytes);
    expect(reported.at(-1)).toBe(20 * chunk);
    expect(seen.filter((p) => p.done)).toEqual([{ bytes: 20 * chunk, rows: 20, done: true }]);
    for (let i = 1; i < reported.length; i++)
      expect(reported[i] as number).toBeGreaterThan(reported[i - 1] as number);
    // 5 MiB before the last chunk, one report per MiB, then the final one.
    expect(reported).toEqual([1, 2, 3, 4].map((n) => n * PROGRESS_BYTES).concat([20 * chunk]));
  });

  it('does nothing without a callback, and never repeats or goes back', () => {
    expect(() => progressThrottle(undefined).update(1, 1)).not.toThrow();
    const seen: number[] = [];
    const throttle = progressThrottle((p) => seen.push(p.bytes));
    throttle.update(2 * PROGRESS_BYTES, 0);
    throttle.update(2 * PROGRESS_BYTES, 0);
    throttle.update(PROGRESS_BYTES, 0);
    expect(seen).toEqual([2 * PROGRESS_BYTES]);
  });
});
