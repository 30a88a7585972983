import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JSONRPCMessage } from '../mcp-sdk.js';
import {
  createSessionEventStore,
  EVENT_STORE_LIMITS,
  type EventStoreLimits,
  eventBytes,
  STREAM_OVERHEAD_BYTES,
} from './event-store.js';

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: n },
});

// Every `note(n)` with a one-digit n is charged the same.
const NOTE = eventBytes(JSON.stringify(note(1)));
const STREAM = STREAM_OVERHEAD_BYTES + 2 * 'fresh'.length;

const LIMITS: EventStoreLimits = {
  eventsPerStream: 3,
  bytesPerStream: 3 * NOTE + 10,
  // Two streams' records and four events.
  bytesPerSession: 2 * STREAM + 4 * NOTE + 10,
  ttlMs: 1_000,
};

/** The events replayed after `id` (their `data`), or the error's message. */
async function replay(store: ReturnType<typeof createSessionEventStore>, id: string) {
  const seen: unknown[] = [];
  try {
    await store.replayEventsAfter(id, {
      send: async (_eventId, message) => {
        seen.push((message as unknown as { params: { data: unknown } }).params.data);
      },
    });
    return seen;
  } catch {
    return 'refused';
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createSessionEventStore', () => {
  it('replays what came after an id, on that id’s stream only', async () => {
    const store = createSessionEventStore(LIMITS);
    const first = await store.storeEvent('a', note(1));
    await store.storeEvent('b', note(9));
    await store.storeEvent('a', note(2));
    const last = await store.storeEvent('a', note(3));
    expect(await store.getStreamIdForEventId(first)).toBe('a');
    expect(await replay(store, first)).toEqual([2, 3]);
    expect(await replay(store, last)).toEqual([]);
    expect(await store.getStreamIdForEventId('nope')).toBeUndefined();
    expect(await replay(store, 'nope')).toBe('refused');
    expect(await replay(store, 'a_99')).toBe('refused');
    store.close();
  });

  it('keeps a stream’s newest events within its count, and refuses a resume across a gap', async () => {
    const store = createSessionEventStore(LIMITS);
    const ids = [];
    for (let n = 1; n <= 5; n++) ids.push(await store.storeEvent('a', note(n)));
    // Kept: 3, 4, 5. After 2: all of them; after 1: 2 is gone, so no replay with a hole.
    expect(await replay(store, ids[1] ?? '')).toEqual([3, 4, 5]);
    expect(await replay(store, ids[0] ?? '')).toBe('refused');
    store.close();
  });

  it('keeps a stream’s newest bytes, and never an event larger than a stream may hold', async () => {
    const store = createSessionEventStore(LIMITS);
    const before = await store.storeEvent('a', note(1));
    const big: JSONRPCMessage = { ...note(2), params: { level: 'info', data: 'x'.repeat(500) } };
    const bigId = await store.storeEvent('a', big);
    await store.storeEvent('a', note(3));
    expect(await replay(store, before)).toBe('refused');
    expect(await replay(store, bigId)).toEqual([3]);
    store.close();
  });

  it('charges a text beyond Latin-1 two bytes a character, as the heap holds it', () => {
    expect(eventBytes('"ü"') - eventBytes('"u"')).toBe(0);
    expect(eventBytes('"ж"') - eventBytes('"u"')).toBe(3);
  });

  it('keeps a session’s newest bytes, dropping the streams written least recently first', async () => {
    const store = createSessionEventStore(LIMITS);
    const old = await store.storeEvent('older', note(1));
    const older = await store.storeEvent('older', note(2));
    await store.storeEvent('older', note(3));
    const fresh = await store.storeEvent('fresh', note(4));
    await store.storeEvent('fresh', note(5));
    await store.storeEvent('fresh', note(6));
    expect(await replay(store, fresh)).toEqual([5, 6]);
    // 1 and 2 went: a resume from 2 still gets 3, one from 1 would miss 2.
    expect(await replay(store, older)).toEqual([3]);
    expect(await replay(store, old)).toBe('refused');
    expect(store.stats().bytes).toBeLessThanOrEqual(LIMITS.bytesPerSession);
    // A third stream: the oldest gives way whole, its record too, and a resume on it is refused.
    await store.storeEvent('third', note(7));
    await store.storeEvent('third', note(8));
    expect(await replay(store, older)).toBe('refused');
    expect(store.stats()).toMatchObject({ streams: 2 });
    expect(store.stats().bytes).toBeLessThanOrEqual(LIMITS.bytesPerSession);
    store.close();
  });

  it('never issues an event id twice, even on a stream it forgot and is written again', async () => {
    const store = createSessionEventStore({ ...LIMITS, bytesPerSession: STREAM + NOTE + 10 });
    const first = await store.storeEvent('a', note(1));
    await store.storeEvent('b', note(2));
    const again = await store.storeEvent('a', note(3));
    expect(again).not.toBe(first);
    // `a` was forgotten in between: what came after `first` is not all here.
    expect(await replay(store, first)).toBe('refused');
    expect(await replay(store, again)).toEqual([]);
    store.close();
  });

  it('forgets events older than its time to live', async () => {
    let clock = 0;
    const store = createSessionEventStore(LIMITS, () => clock);
    const first = await store.storeEvent('a', note(1));
    await store.storeEvent('a', note(2));
    clock = 500;
    expect(await replay(store, first)).toEqual([2]);
    clock = 2_000;
    expect(await replay(store, first)).toBe('refused');
    store.close();
  });

  it('drops an idle session’s events when their time is up, with no new event to trigger it', async () => {
    vi.useFakeTimers();
    const store = createSessionEventStore();
    for (let n = 0; n < 10; n++) await store.storeEvent(`stream-${n % 3}`, note(n));
    expect(store.stats()).toMatchObject({ streams: 3, events: 10 });
    vi.advanceTimersByTime(EVENT_STORE_LIMITS.ttlMs - 1_000);
    expect(store.stats().events).toBe(10);
    // Within a twelfth of the time to live after it.
    vi.advanceTimersByTime(1_000 + EVENT_STORE_LIMITS.ttlMs / 12 + 1);
    expect(store.stats()).toEqual({ streams: 0, events: 0, bytes: 0 });
    // Empty, it keeps no timer.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('forgets everything and stops its timer on close', async () => {
    vi.useFakeTimers();
    const store = createSessionEventStore();
    const id = await store.storeEvent('a', note(1));
    expect(vi.getTimerCount()).toBe(1);
    store.close();
    expect(vi.getTimerCount()).toBe(0);
    expect(store.stats()).toEqual({ streams: 0, events: 0, bytes: 0 });
    expect(await replay(store, id)).toBe('refused');
  });

  it('holds at most 8 MiB of heap for one session filled to its cap', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    // A clock that stands still: nothing expires, whatever the machine's speed.
    const store = createSessionEventStore(EVENT_STORE_LIMITS, () => 0);
    // What a busy 2025-era session stores: each POST answered on a stream of its own, a priming
    // event (`{}`) and the result; log messages of 1 KB on the standalone GET stream.
    for (let n = 0; n < 30_000; n++) {
      const stream = randomUUID();
      await store.storeEvent(stream, {} as JSONRPCMessage);
      await store.storeEvent(stream, {
        jsonrpc: '2.0',
        id: n,
        result: { content: [{ type: 'text', text: `answer ${n}` }] },
      });
      if (n % 10 === 0)
        await store.storeEvent('_GET_stream', {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'info', data: `${n} ${'x'.repeat(1_000)}` },
        });
    }
    gc();
    const held = process.memoryUsage().heapUsed - before;
    expect(store.stats().bytes).toBeLessThanOrEqual(EVENT_STORE_LIMITS.bytesPerSession);
    expect(store.stats().events).toBeGreaterThan(1_000);
    expect(held).toBeLessThan(8 * 1024 * 1024);
    store.close();
  });
});
