import { chargedEntryBytes } from '@s2sp/core/store';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNearCache, type NearEntry } from './near-cache.js';

/** A table of `rows` rows of `width` bytes each, expiring `ttlMs` from now. */
function entry(rows: number, width = 100, ttlMs = 60_000): NearEntry {
  const ends = Uint32Array.from({ length: rows }, (_, i) => (i + 1) * (width + 1) - 1);
  return {
    columns: ['a'],
    joined: new Uint8Array(rows * (width + 1) - 1),
    ends,
    expiresAt: Date.now() + ttlMs,
  };
}
const cost = (e: NearEntry) => chargedEntryBytes(e.joined.byteLength, e.ends.length);

afterEach(() => {
  vi.useRealTimers();
});

describe('the near cache', () => {
  it('gives a kept table back once, and charges it as a store charges an entry', () => {
    const near = createNearCache({ maxBytes: 1 << 20 });
    const table = entry(10);
    near.keep('k', table);
    expect(near.bytes).toBe(cost(table));
    expect(near.remove('k')).toBe(table);
    expect(near.remove('k')).toBeUndefined();
    expect(near.bytes).toBe(0);
  });

  it('drops the oldest tables to make room, and keeps none larger than itself', () => {
    const one = entry(100);
    const near = createNearCache({ maxBytes: cost(one) * 2 });
    near.keep('a', one);
    near.keep('b', entry(100));
    near.keep('c', entry(100));
    expect(near.remove('a')).toBeUndefined();
    expect(near.remove('b')).toBeDefined();
    expect(near.remove('c')).toBeDefined();
    near.keep('big', entry(300));
    expect(near.remove('big')).toBeUndefined();
    expect(near.bytes).toBe(0);
  });

  it('keeps nothing with a budget of 0', () => {
    const near = createNearCache({ maxBytes: 0 });
    near.keep('k', entry(1));
    expect(near.remove('k')).toBeUndefined();
  });

  it('gives no expired table, puts back only a live one, and sweeps expired ones unasked', () => {
    vi.useFakeTimers();
    const near = createNearCache({ maxBytes: 1 << 20 });
    near.keep('short', entry(5, 100, 1_000));
    near.keep('long', entry(5, 100, 60_000));
    vi.advanceTimersByTime(1_001);
    expect(near.remove('short')).toBeUndefined();
    const long = near.remove('long') as NearEntry;
    near.restore('long', long);
    expect(near.remove('long')).toBe(long);
    near.restore('long', long);
    near.keep('short2', entry(5, 100, 1_000));
    vi.advanceTimersByTime(10_000);
    // The sweep dropped the expired one without a take: only the live one is charged.
    expect(near.bytes).toBe(cost(long));
    vi.advanceTimersByTime(60_000);
    expect(near.bytes).toBe(0);
  });

  it('replaces a table kept under the same key, and clears everything', () => {
    const near = createNearCache({ maxBytes: 1 << 20 });
    near.keep('k', entry(1));
    const second = entry(2);
    near.keep('k', second);
    expect(near.bytes).toBe(cost(second));
    near.keep('other', entry(3));
    near.clear();
    expect(near.bytes).toBe(0);
    expect(near.remove('k')).toBeUndefined();
  });

  it('hands every table it lets go of unasked to onDrop, and none it gives to a taker', () => {
    vi.useFakeTimers();
    const dropped: NearEntry[] = [];
    const one = entry(100);
    const near = createNearCache({ maxBytes: cost(one) * 2, onDrop: (e) => dropped.push(e) });
    near.keep('a', one);
    const b = entry(100);
    near.keep('b', b);
    const c = entry(100, 100, 1_000);
    near.keep('c', c); // makes room: a goes
    expect(dropped).toEqual([one]);
    const taken = near.remove('b') as NearEntry;
    expect(taken).toBe(b);
    vi.advanceTimersByTime(1_001);
    near.restore('b', taken);
    expect(near.remove('c')).toBeUndefined(); // expired: dropped, not handed out
    expect(dropped).toEqual([one, c]);
    near.clear();
    expect(dropped).toEqual([one, c, b]);
    // A table too large to keep is not the cache's: the caller gives it back itself.
    expect(near.keep('big', entry(300))).toBe(false);
    expect(dropped).toHaveLength(3);
  });
});
