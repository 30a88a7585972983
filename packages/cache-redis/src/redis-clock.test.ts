import { describe, expect, it } from 'vitest';
import { parseRedisTime, RedisClock } from './redis-clock.js';

describe('parseRedisTime', () => {
  it('reads seconds and microseconds as milliseconds', () => {
    expect(parseRedisTime(['1700000000', '123456'])).toBe(1_700_000_000_123);
    expect(parseRedisTime([1700000000, 999])).toBe(1_700_000_000_000);
  });

  it('refuses anything else', () => {
    for (const reply of [null, 'x', ['1'], ['a', 'b']])
      expect(() => parseRedisTime(reply)).toThrow('unexpected TIME reply');
  });
});

describe('RedisClock', () => {
  // A fake local clock and a Redis clock that runs 10 s ahead of it; TIME takes 20 ms.
  function setup() {
    let local = 1_000_000;
    let timeCalls = 0;
    const clock = new RedisClock(
      async () => {
        timeCalls++;
        local += 10; // Redis reads its clock halfway through the round trip
        const redisMs = local + 10_000;
        local += 10;
        return [String(Math.floor(redisMs / 1000)), String((redisMs % 1000) * 1000)];
      },
      60_000,
      () => local,
    );
    return {
      clock,
      timeCalls: () => timeCalls,
      now: () => local,
      advance: (ms: number) => {
        local += ms;
      },
    };
  }

  it('turns a local give-up time into Redis time, minus a margin for the way back', async () => {
    const { clock, now } = setup();
    const giveUpAt = now() + 1000;
    // Offset +10 000 ms; margin = min(1000 / 4, 250) + 10 (uncertainty) + 1.
    expect(await clock.deadline(giveUpAt, 1000)).toBe(giveUpAt + 10_000 - 261);
  });

  it('gives the same deadline without waiting once the offset is known, and none before', async () => {
    const { clock, now, timeCalls } = setup();
    const giveUpAt = now() + 1000;
    expect(clock.knownDeadline(giveUpAt, 1000)).toBeUndefined();
    expect(timeCalls()).toBe(0);
    await clock.deadline(giveUpAt, 1000);
    expect(clock.knownDeadline(giveUpAt, 1000)).toBe(giveUpAt + 10_000 - 261);
    clock.reset();
    expect(clock.knownDeadline(giveUpAt, 1000)).toBeUndefined();
  });

  it('keeps a small margin for a short timeout', async () => {
    const { clock, now } = setup();
    const giveUpAt = now() + 100;
    expect(await clock.deadline(giveUpAt, 100)).toBe(giveUpAt + 10_000 - 36);
  });

  it('measures once, again in the background when stale, and after reset()', async () => {
    const { clock, timeCalls, now, advance } = setup();
    await clock.deadline(now(), 1000);
    await clock.deadline(now(), 1000);
    expect(timeCalls()).toBe(1);
    advance(60_001);
    await clock.deadline(now(), 1000);
    expect(timeCalls()).toBe(2);
    clock.reset();
    await clock.deadline(now(), 1000);
    expect(timeCalls()).toBe(3);
  });

  it('shares one measurement between concurrent callers', async () => {
    const { clock, timeCalls, now } = setup();
    await Promise.all([clock.deadline(now(), 1000), clock.deadline(now(), 1000)]);
    expect(timeCalls()).toBe(1);
  });

  it('fails when TIME fails, and measures again next time', async () => {
    let fail = true;
    const clock = new RedisClock(async () => {
      if (fail) throw new Error('down');
      return ['100', '0'];
    });
    await expect(clock.deadline(Date.now(), 1000)).rejects.toThrow('down');
    fail = false;
    expect(typeof (await clock.deadline(Date.now(), 1000))).toBe('number');
  });
});
