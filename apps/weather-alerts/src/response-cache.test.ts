import { describe, expect, it } from 'vitest';
import { createResponseCache } from './response-cache.js';

function clock(start = 1_000) {
  let time = start;
  return {
    now: () => time,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('createResponseCache', () => {
  it('serves a value until its TTL passes, then loads again', async () => {
    const time = clock();
    const cache = createResponseCache<string>({ ttlMs: 60_000, maxEntries: 10, now: time.now });
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cache.getOrLoad('a', load)).toBe('v1');
    time.advance(59_999);
    expect(await cache.getOrLoad('a', load)).toBe('v1');
    time.advance(1);
    expect(await cache.getOrLoad('a', load)).toBe('v2');
    expect(loads).toBe(2);
  });

  it('coalesces concurrent loads of one key into a single load', async () => {
    const cache = createResponseCache<number>({ ttlMs: 0, maxEntries: 10 });
    let loads = 0;
    let release: (value: number) => void = () => {};
    const load = () => {
      loads++;
      return new Promise<number>((resolve) => {
        release = resolve;
      });
    };
    const calls = Array.from({ length: 5 }, () => cache.getOrLoad('k', load));
    await Promise.resolve();
    release(42);
    expect(await Promise.all(calls)).toEqual([42, 42, 42, 42, 42]);
    expect(loads).toBe(1);
    // TTL 0: nothing is kept once the load settles.
    expect(cache.size()).toBe(0);
    await cache.getOrLoad('k', async () => 7);
    expect(loads).toBe(1);
  });

  it('does not cache failures, including loads that throw synchronously', async () => {
    const cache = createResponseCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    await expect(
      cache.getOrLoad('k', () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(
      cache.getOrLoad('k', async () => Promise.reject(new Error('again'))),
    ).rejects.toThrow('again');
    expect(await cache.getOrLoad('k', async () => 'ok')).toBe('ok');
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const cache = createResponseCache<string>({ ttlMs: 60_000, maxEntries: 2 });
    await cache.getOrLoad('a', async () => 'A');
    await cache.getOrLoad('b', async () => 'B');
    await cache.getOrLoad('c', async () => 'C');
    expect(cache.size()).toBe(2);
    expect(await cache.getOrLoad('a', async () => 'A2')).toBe('A2');
    expect(await cache.getOrLoad('c', async () => 'C2')).toBe('C');
    cache.clear();
    expect(cache.size()).toBe(0);
  });
});
