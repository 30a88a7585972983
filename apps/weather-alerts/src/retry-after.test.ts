import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-09-13T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date relative to now; a past date means no wait', () => {
    expect(parseRetryAfter('Sun, 13 Sep 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sun, 13 Sep 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores an absent or unreadable header', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    for (const bad of ['', '-1', '1.5', 'soon', 'tomorrow GMT', '2026-09-13']) {
      expect(parseRetryAfter(bad, now)).toBeUndefined();
    }
  });
});
