import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBytePool, POOLED_MAX_BYTES, POOLED_MIN_BYTES, sizeClass } from './byte-pool.js';

const MIB = 1024 * 1024;

describe('sizeClass', () => {
  it('rounds up to an eighth of the size’s power of two, and keeps exact classes', () => {
    expect(sizeClass(MIB)).toBe(MIB);
    expect(sizeClass(MIB + 1)).toBe(MIB + MIB / 8);
    expect(sizeClass(1_180_000)).toBe(MIB + (2 * MIB) / 8);
    expect(sizeClass(2 * MIB - 1)).toBe(2 * MIB);
  });

  it('never wastes more than an eighth of what is asked for', () => {
    for (let size = POOLED_MIN_BYTES; size < 64 * MIB; size = Math.ceil(size * 1.37) + 1) {
      expect(sizeClass(size)).toBeGreaterThanOrEqual(size);
      expect(sizeClass(size)).toBeLessThanOrEqual(size * 1.125);
    }
  });
});

describe('createBytePool', () => {
  it('hands a given-back buffer out again for a size of its class', () => {
    const pool = createBytePool({ maxFreeBytes: () => 8 * MIB });
    const first = pool.allocate(MIB + 10);
    pool.give(first);
    expect(pool.freeBytes).toBe(sizeClass(MIB + 10));
    const second = pool.allocate(MIB + 100);
    expect(second.buffer).toBe(first.buffer);
    expect(second.byteLength).toBe(MIB + 100);
    expect(pool.freeBytes).toBe(0);
  });

  it('zeroes what a reused buffer held past its new length', () => {
    const pool = createBytePool({ maxFreeBytes: () => 8 * MIB });
    const first = pool.allocate(MIB + 100);
    first.fill(7);
    pool.give(first);
    const second = pool.allocate(MIB + 10);
    expect(second.buffer).toBe(first.buffer);
    const tail = new Uint8Array(second.buffer, second.byteLength);
    expect(tail.length).toBeGreaterThan(0);
    expect(tail.every((byte) => byte === 0)).toBe(true);
  });

  it('gives a buffer of another class, or a fresh one, when none of its class is free', () => {
    const pool = createBytePool({ maxFreeBytes: () => 8 * MIB });
    const small = pool.allocate(MIB);
    pool.give(small);
    expect(pool.allocate(2 * MIB).buffer).not.toBe(small.buffer);
    expect(pool.allocate(MIB).buffer).toBe(small.buffer);
    expect(pool.allocate(MIB).buffer).not.toBe(small.buffer);
  });

  it('ignores a buffer it did not make, and one already free', () => {
    const pool = createBytePool({ maxFreeBytes: () => 8 * MIB });
    pool.give(new Uint8Array(MIB));
    expect(pool.freeBytes).toBe(0);
    const bytes = pool.allocate(MIB);
    pool.give(bytes);
    pool.give(bytes);
    expect(pool.freeBytes).toBe(MIB);
    expect(pool.allocate(MIB).buffer).toBe(bytes.buffer);
    expect(pool.allocate(MIB).buffer).not.toBe(bytes.buffer);
  });

  it('keeps at most maxFreeBytes() of free buffers, and never pools small or huge ones', () => {
    let room = 2 * MIB;
    const pool = createBytePool({ maxFreeBytes: () => room });
    const held = [pool.allocate(MIB), pool.allocate(MIB), pool.allocate(MIB)];
    for (const bytes of held) pool.give(bytes);
    expect(pool.freeBytes).toBe(2 * MIB);
    const small = pool.allocate(POOLED_MIN_BYTES - 1);
    pool.give(small);
    room = 2 * POOLED_MAX_BYTES;
    const huge = pool.allocate(POOLED_MAX_BYTES + 1);
    expect(huge.buffer.byteLength).toBe(POOLED_MAX_BYTES + 1);
    pool.give(huge);
    expect(pool.freeBytes).toBe(2 * MIB);
    pool.clear();
    expect(pool.freeBytes).toBe(0);
    expect(pool.allocate(MIB).buffer).not.toBe(held[0]?.buffer);
  });

  it('drops free buffers, largest first, to make room for one it makes anew', () => {
    const pool = createBytePool({ maxFreeBytes: () => 4 * MIB });
    const one = pool.allocate(MIB);
    const two = pool.allocate(2 * MIB);
    pool.give(one);
    pool.give(two);
    expect(pool.freeBytes).toBe(3 * MIB);
    // A class none is free of: 3 MiB made anew leaves room for 1 MiB of free buffers.
    pool.allocate(3 * MIB);
    expect(pool.freeBytes).toBe(MIB);
    expect(pool.allocate(MIB).buffer).toBe(one.buffer);
  });
});

describe('createBytePool when idle', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('drops its free buffers once none has been reused for idleMs, and keeps them while they are', () => {
    vi.useFakeTimers();
    const pool = createBytePool({ maxFreeBytes: () => 8 * MIB, idleMs: 1000 });
    let bytes = pool.allocate(MIB);
    pool.give(bytes);
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(600);
      const again = pool.allocate(MIB);
      expect(again.buffer).toBe(bytes.buffer);
      bytes = again;
      pool.give(bytes);
    }
    expect(pool.freeBytes).toBe(MIB);
    vi.advanceTimersByTime(2001);
    expect(pool.freeBytes).toBe(0);
    expect(pool.allocate(MIB).buffer).not.toBe(bytes.buffer);
  });
});
