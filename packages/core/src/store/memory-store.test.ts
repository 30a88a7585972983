import { codeAndDataOf } from '@s2sp/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { S2SPError } from '../errors.js';
import { describeBodyStoreContract } from '../testing/body-store-contract.js';
import { makeStoredTable } from '../testing/make-stored-table.js';
import { readTaken } from '../testing/read-taken.js';
import type { BodyStore } from './body-store.js';
import { createMemoryStore } from './memory-store.js';

describeBodyStoreContract('memory', async () => createMemoryStore(), {
  makeBoundedStore: async (maxBytes) => createMemoryStore({ maxBytes }),
});

describe('createMemoryStore', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('serves at TTL - 1 ms and not at TTL, on a fake clock', async () => {
    vi.useFakeTimers();
    const store = createMemoryStore();
    await store.put('a', makeStoredTable(1), { ttlMs: 600_000 });
    await store.put('b', makeStoredTable(1), { ttlMs: 600_000 });
    vi.advanceTimersByTime(599_999);
    expect((await store.take('a'))?.tableRows).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await store.take('b')).toBeUndefined();
    expect((await store.stats()).entries).toBe(0);
  });

  it('never serves an entry past its expiry even if its timer has not fired yet', async () => {
    const store = createMemoryStore();
    const now = Date.now();
    const spy = vi.spyOn(Date, 'now').mockReturnValue(now);
    await store.put('k', makeStoredTable(1), { ttlMs: 50_000 });
    spy.mockReturnValue(now + 50_000);
    expect(await store.take('k')).toBeUndefined();
    spy.mockRestore();
    await store.close();
  });

  it('refuses a table larger than the whole budget, saying so', async () => {
    const store = createMemoryStore({ maxBytes: 10 });
    const error = await store
      .put('k', makeStoredTable(1), { ttlMs: 1000 })
      .catch((e: unknown) => e);
    expect(S2SPError.isInstance(error) && error.code).toBe('store_full');
    expect((error as Error).message).toMatch(/larger than the whole cache/);
    await store.close();
  });

  it('limits the number of entries', async () => {
    const store = createMemoryStore({ maxEntries: 2 });
    await store.put('a', makeStoredTable(1), { ttlMs: 1000 });
    await store.put('b', makeStoredTable(1), { ttlMs: 1000 });
    const error = await store
      .put('c', makeStoredTable(1), { ttlMs: 1000 })
      .catch((e: unknown) => e);
    expect(S2SPError.isInstance(error) && error.code).toBe('store_full');
    await store.take('a');
    await store.put('c', makeStoredTable(1), { ttlMs: 1000 });
    expect((await store.stats()).entries).toBe(2);
    await store.close();
  });

  it('rejects bad budgets when created', () => {
    for (const maxBytes of [0, -1, 1.5]) {
      expect(codeAndDataOf(() => createMemoryStore({ maxBytes }))).toEqual([
        'invalid_config',
        { option: 'maxBytes' },
      ]);
    }
    expect(codeAndDataOf(() => createMemoryStore({ maxEntries: 0 }))).toEqual([
      'invalid_config',
      { option: 'maxEntries' },
    ]);
  });

  it('refuses puts after close and forgets everything', async () => {
    const store = createMemoryStore();
    await store.put('a', makeStoredTable(3), { ttlMs: 1000 });
    await store.close();
    expect(await store.stats()).toEqual({ entries: 0, rows: 0, bytes: 0 });
    await expect(store.put('b', makeStoredTable(1), { ttlMs: 1000 })).rejects.toThrow(/closed/);
  });

  it('replaces an entry put twice under one key without double counting', async () => {
    const store = createMemoryStore();
    await store.put('a', makeStoredTable(3), { ttlMs: 1000 });
    await store.put('a', makeStoredTable(2), { ttlMs: 1000 });
    expect((await store.stats()).rows).toBe(2);
    await store.close();
  });
});

describe('createMemoryStore take', () => {
  it('lets the store hand out exact slices of non-ASCII rows', async () => {
    const store = createMemoryStore();
    const rows = ['{"_row_id":0,"t":"€"}', '{"_row_id":1,"t":"😀"}', '{"_row_id":2,"t":"a"}'];
    await store.put('k', { columns: ['t'], rows }, { ttlMs: 1000 });
    const read = await readTaken(await store.take('k', [0, 2, 3]));
    expect(read?.rows).toEqual([rows[0], rows[2]]);
    expect(read?.missing).toEqual([3]);
    await store.close();
  });
  it('hands a whole table over as the very buffer it encoded at put time, in one piece', async () => {
    const store = createMemoryStore();
    const table = makeStoredTable(50);
    await store.put('k', table, { ttlMs: 1000 });
    const taken = await store.take('k');
    const pieces: Uint8Array[] = [];
    for await (const piece of taken?.chunks ?? []) pieces.push(piece);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]?.byteLength).toBe(taken?.byteLength);
    expect(pieces[0]?.buffer.byteLength).toBe(pieces[0]?.byteLength);
    await store.close();
  });
});

describe('createMemoryStore reusing the bytes of released takes', () => {
  /** A table of `n` ASCII rows of ~1 KB each (pooled from 64 KiB). */
  const bigTable = (n: number, fill: string) => ({
    columns: ['v'],
    rows: Array.from({ length: n }, (_, i) => JSON.stringify({ _row_id: i, v: fill.repeat(1000) })),
  });
  const bufferOf = async (taken: Awaited<ReturnType<BodyStore['take']>>) => {
    const pieces: Uint8Array[] = [];
    for await (const piece of taken?.chunks ?? []) pieces.push(piece);
    return pieces[0]?.buffer;
  };

  it('encodes a later table into the buffer of a released take, its rows intact', async () => {
    const store = createMemoryStore();
    await store.put('a', bigTable(100, 'a'), { ttlMs: 60_000 });
    const first = await store.take('a');
    const firstBuffer = await bufferOf(first);
    first?.release?.();
    first?.release?.(); // a second call changes nothing
    const table = bigTable(99, 'b');
    await store.put('b', table, { ttlMs: 60_000 });
    await store.put('c', bigTable(99, 'c'), { ttlMs: 60_000 });
    const second = await store.take('b');
    expect(second?.release).toBeTypeOf('function');
    const read = await readTaken(second);
    expect(read?.rows).toEqual(table.rows);
    // Only one buffer came back, so the third table has one of its own.
    const third = await store.take('c');
    const thirdBuffer = await bufferOf(third);
    expect(thirdBuffer).not.toBe(firstBuffer);
    await store.close();
  });

  it('reuses a released buffer for the next table (same buffer), and never one still taken', async () => {
    const store = createMemoryStore();
    await store.put('a', bigTable(100, 'a'), { ttlMs: 60_000 });
    const held = await store.take('a');
    const heldBuffer = await bufferOf(held);
    await store.put('b', bigTable(100, 'b'), { ttlMs: 60_000 });
    const unreleased = await bufferOf(await store.take('b'));
    expect(unreleased).not.toBe(heldBuffer);
    held?.release?.();
    await store.put('c', bigTable(100, 'c'), { ttlMs: 60_000 });
    expect(await bufferOf(await store.take('c'))).toBe(heldBuffer);
    await store.close();
  });

  it('reuses the bytes of an entry that expired untaken, but not of one a repeatable take won', async () => {
    vi.useFakeTimers();
    const store = createMemoryStore();
    await store.put('gone', bigTable(100, 'a'), { ttlMs: 1000 });
    await store.put('repeat', bigTable(100, 'r'), { ttlMs: 5000 });
    const won = await store.take('repeat', undefined, { retry: { key: 'k', graceMs: 1000 } });
    vi.advanceTimersByTime(1001);
    // The entry that expired untaken gave its buffer back; the repeatable one's copies may still
    // be read, and the next two tables must not share its memory.
    await store.put('x', bigTable(100, 'x'), { ttlMs: 60_000 });
    await store.put('y', bigTable(100, 'y'), { ttlMs: 60_000 });
    vi.useRealTimers();
    const read = await readTaken(won);
    expect(read?.rows).toEqual(bigTable(100, 'r').rows);
    expect((await readTaken(await store.take('x')))?.rows).toEqual(bigTable(100, 'x').rows);
    expect((await readTaken(await store.take('y')))?.rows).toEqual(bigTable(100, 'y').rows);
    await store.close();
  });

  it('keeps an entry intact when a put beside it is refused (store_full) and its buffer goes back', async () => {
    const store = createMemoryStore({ maxBytes: 150_000 });
    await store.put('a', bigTable(100, 'a'), { ttlMs: 60_000 });
    const refused = await store.put('b', bigTable(100, 'b'), { ttlMs: 60_000 }).catch((e) => e);
    expect((refused as S2SPError).code).toBe('store_full');
    const taken = await store.take('a');
    expect((await readTaken(taken))?.rows).toEqual(bigTable(100, 'a').rows);
    await store.close();
  });
});

describe('createMemoryStore byte budget: an empty result is not free', () => {
  it('charges every entry its overhead, so empty results are not free', async () => {
    const store = createMemoryStore({ maxBytes: 10 * 1024 });
    let stored = 0;
    let refused: unknown;
    for (let i = 0; i < 1000 && refused === undefined; i++) {
      await store.put(`k${i}`, { columns: [], rows: [] }, { ttlMs: 60_000 }).then(
        () => stored++,
        (error: unknown) => {
          refused = error;
        },
      );
    }
    expect(stored).toBe(10);
    expect((refused as { code?: string }).code).toBe('store_full');
    // Room comes back when one is taken.
    await store.take('k0');
    await store.put('again', { columns: [], rows: [] }, { ttlMs: 60_000 });
    expect((await store.stats()).entries).toBe(10);
    await store.close();
  });
});
