import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '../mcp-sdk.js';
import { createSessionEventStore, type EventStoreLimits } from './event-store.js';

const LIMITS: EventStoreLimits = {
  eventsPerStream: 3,
  bytesPerStream: 300,
  bytesPerSession: 400,
  ttlMs: 1_000,
};

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: n },
});

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
  });

  it('keeps a stream’s newest events within its count, and refuses a resume across a gap', async () => {
    const store = createSessionEventStore(LIMITS);
    const ids = [];
    for (let n = 1; n <= 5; n++) ids.push(await store.storeEvent('a', note(n)));
    // Kept: 3, 4, 5. After 2: all of them; after 1: 2 is gone, so no replay with a hole.
    expect(await replay(store, ids[1] ?? '')).toEqual([3, 4, 5]);
    expect(await replay(store, ids[0] ?? '')).toBe('refused');
  });

  it('keeps a stream’s newest bytes, and never an event larger than a stream may hold', async () => {
    const store = createSessionEventStore(LIMITS);
    const before = await store.storeEvent('a', note(1));
    const big: JSONRPCMessage = { ...note(2), params: { level: 'info', data: 'x'.repeat(300) } };
    const bigId = await store.storeEvent('a', big);
    await store.storeEvent('a', note(3));
    expect(await replay(store, before)).toBe('refused');
    expect(await replay(store, bigId)).toEqual([3]);
  });

  it('keeps a session’s newest bytes, dropping the streams written least recently first', async () => {
    const store = createSessionEventStore(LIMITS);
    // Each event is 82 bytes of JSON: four fit in 400.
    const old = await store.storeEvent('old', note(1));
    const older = await store.storeEvent('old', note(2));
    await store.storeEvent('old', note(3));
    const fresh = await store.storeEvent('fresh', note(4));
    await store.storeEvent('fresh', note(5));
    await store.storeEvent('fresh', note(6));
    expect(await replay(store, fresh)).toEqual([5, 6]);
    // 1 and 2 went: a resume from 2 still gets 3, one from 1 would miss 2.
    expect(await replay(store, older)).toEqual([3]);
    expect(await replay(store, old)).toBe('refused');
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
  });
});
