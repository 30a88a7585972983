import { codeAndDataOf, codeOf } from '@s2sp/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DdiBuffer } from './ddi-buffer.js';

const rows = [{ _row_id: 0, a: 1 }];

describe('DdiBuffer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands out distinct ddi:// handles with 256 random bits, each usable once', () => {
    const buffer = new DdiBuffer();
    const a = buffer.put(rows);
    const b = buffer.put(rows);
    expect(a).toMatch(/^ddi:\/\/[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(buffer.size).toBe(2);
    expect(buffer.take(a)).toBe(rows);
    expect(buffer.has(a)).toBe(false);
    expect(codeOf(() => buffer.take(a))).toBe('not_found');
    expect(buffer.size).toBe(1);
  });

  it('refuses an unknown handle with advice instead of returning an empty body', () => {
    const buffer = new DdiBuffer();
    expect(() => buffer.take('ddi://nope')).toThrow(
      /unknown, expired or already used.*Call the resource tool again with mode="sync"/,
    );
  });

  it('expires handles after the TTL', () => {
    vi.useFakeTimers();
    const buffer = new DdiBuffer({ ttlMs: 1000 });
    const handle = buffer.put(rows);
    vi.advanceTimersByTime(999);
    expect(buffer.has(handle)).toBe(true);
    vi.advanceTimersByTime(1);
    expect(codeOf(() => buffer.take(handle))).toBe('not_found');
    expect(buffer.size).toBe(0);
  });

  it('drops the oldest body beyond maxEntries', () => {
    const buffer = new DdiBuffer({ maxEntries: 2 });
    const first = buffer.put(rows);
    const second = buffer.put(rows);
    const third = buffer.put(rows);
    expect(buffer.has(first)).toBe(false);
    expect(buffer.has(second) && buffer.has(third)).toBe(true);
    buffer.clear();
    expect(buffer.size).toBe(0);
  });

  it('recognises handles and rejects bad options', () => {
    expect(DdiBuffer.isHandle('ddi://x')).toBe(true);
    expect(DdiBuffer.isHandle('http://x/s2sp/data/t')).toBe(false);
    expect(DdiBuffer.isHandle(undefined)).toBe(false);
    expect(codeAndDataOf(() => new DdiBuffer({ maxEntries: 0 }))).toEqual([
      'invalid_config',
      { option: 'maxEntries' },
    ]);
    expect(codeAndDataOf(() => new DdiBuffer({ ttlMs: -1 }))).toEqual([
      'invalid_config',
      { option: 'ttlMs' },
    ]);
  });
});

describe('DdiBuffer options', () => {
  it('names the option at fault', () => {
    for (const [options, option] of [
      [{ maxEntries: 0 }, 'maxEntries'],
      [{ maxEntries: 2.5 }, 'maxEntries'],
      [{ ttlMs: 0 }, 'ttlMs'],
    ] as const) {
      let caught: unknown;
      try {
        new DdiBuffer(options);
      } catch (error) {
        caught = error;
      }
      expect((caught as { code?: string }).code).toBe('invalid_config');
      expect((caught as { data?: unknown }).data).toEqual({ option });
    }
  });
});
