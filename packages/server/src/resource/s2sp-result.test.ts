import { describe, expect, it } from 'vitest';
import { expiryStamp } from './s2sp-result.js';

describe('expiryStamp', () => {
  it('writes whole seconds, rounded down', () => {
    expect(expiryStamp(new Date('2026-11-22T10:10:00.999Z'))).toBe('2026-11-22T10:10:00Z');
    expect(expiryStamp(new Date('2026-11-22T10:10:07.000Z'))).toBe('2026-11-22T10:10:07Z');
  });

  it('is never later than the instant it stands for', () => {
    const at = new Date('2026-11-22T23:59:59.500Z');
    expect(Date.parse(expiryStamp(at))).toBeLessThanOrEqual(at.getTime());
    expect(Date.parse(expiryStamp(at))).toBe(Date.parse('2026-11-22T23:59:59Z'));
  });
});
