import { makeStoredTable, readTaken } from '@s2sp/core/testing';
import { type RedisTestServer, startRedis } from '@s2sp/test-utils';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { quietLogger, uniquePrefix } from '../test/helpers.js';
import { createRedisBodyStore } from './redis-body-store.js';
import { type NodeRedisCommandOptions, wrapClient } from './redis-connection.js';

let redis: RedisTestServer;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.stop();
});

/** A real node-redis client that records the command name and options of every command. */
async function recordingClient() {
  const client = createClient({ url: redis.url });
  await client.connect();
  const sent: { command: string; options: NodeRedisCommandOptions | undefined }[] = [];
  const original = client.sendCommand.bind(client);
  client.sendCommand = ((args: string[], options?: NodeRedisCommandOptions) => {
    sent.push({ command: String(args[0]).toUpperCase(), options });
    return original(args, options);
  }) as typeof client.sendCommand;
  return { client, sent };
}

describe('wrapClient (node-redis)', () => {
  it('arms node-redis timeouts except for commands that are harmless late', async () => {
    const { client, sent } = await recordingClient();
    try {
      const connection = wrapClient(client, 1234);
      await connection.send(['SET', 'wrap-k', 'v']);
      expect(await connection.send(['GET', 'wrap-k'], undefined, { buffers: true })).toEqual(
        Buffer.from('v'),
      );
      await connection.send(['GET', 'wrap-k'], undefined, { lateIsHarmless: true });
      const late = await connection.send(['GET', 'wrap-k'], undefined, {
        buffers: true,
        lateIsHarmless: true,
      });
      expect(late).toEqual(Buffer.from('v'));
      expect(sent.map((s) => s.options?.timeout)).toEqual([1234, 1234, undefined, undefined]);
      expect(sent.map((s) => s.options?.typeMapping !== undefined)).toEqual([
        false,
        true,
        false,
        true,
      ]);
    } finally {
      await client.close();
    }
  });
});

describe('a take through a node-redis client', () => {
  it('sends its commands without a node-redis timer, and a put with one', async () => {
    const { client, sent } = await recordingClient();
    const store = createRedisBodyStore({
      client,
      keyPrefix: uniquePrefix(),
      logger: quietLogger,
      evictionPolicyCheck: 'off',
      nearCacheBytes: 0,
    });
    try {
      const table = makeStoredTable(30);
      for (const key of ['warm', 'some', 'all']) await store.put(key, table, { ttlMs: 60_000 });
      const puts = sent.splice(0);
      expect(puts.length).toBeGreaterThan(0);
      expect(puts.every((s) => s.options?.timeout === 5000)).toBe(true);

      // Loads the scripts (EVAL after NOSCRIPT), so that what follows is one command each.
      await readTaken(await store.take('warm', [0]));
      await new Promise((resolve) => setTimeout(resolve, 50));
      sent.splice(0);
      expect((await readTaken(await store.take('some', [2, 7])))?.rows).toEqual([
        table.rows[2],
        table.rows[7],
      ]);
      expect((await readTaken(await store.take('all')))?.rows).toEqual(table.rows);
      // The whole table's expiry is sent without waiting: let it go out.
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Rows of a small table: the script alone, which also lets it go. A whole table: its reads,
      // then the claim, which also lets it expire.
      expect(sent.map((s) => s.command)).toEqual(['EVALSHA', 'MGET', 'EVALSHA']);
      expect(sent.map((s) => s.options?.timeout)).toEqual([undefined, undefined, undefined]);
      // A take late for its deadline still changes nothing: the script checks it (entry-scripts).
      expect(await store.take('some')).toBeUndefined();
    } finally {
      await store.close();
      await client.close();
    }
  });
});

describe("a take through the store's own client", () => {
  // The client made for a `url` has a default command timeout: a take must override it, not
  // inherit a node-redis timer (an AbortSignal.timeout per command) from it.
  it('arms no node-redis timer for a take, and one for a put', async () => {
    const store = createRedisBodyStore({
      url: redis.url,
      keyPrefix: uniquePrefix(),
      logger: quietLogger,
      evictionPolicyCheck: 'off',
    });
    const timers = vi.spyOn(AbortSignal, 'timeout');
    try {
      const table = makeStoredTable(30);
      for (const key of ['warm', 'some', 'all']) await store.put(key, table, { ttlMs: 60_000 });
      expect(timers.mock.calls.length).toBeGreaterThan(0);
      await readTaken(await store.take('warm', [1])); // loads the script
      timers.mockClear();
      // One timer of the store's own bounds the take's one command; nothing else arms one.
      const storeTimers = vi.spyOn(globalThis, 'setTimeout');
      let armed = -1;
      const some = await store.take('some', [2, 7]).finally(() => {
        armed = storeTimers.mock.calls.length;
        storeTimers.mockRestore();
      });
      expect(armed).toBe(1);
      expect((await readTaken(some))?.rows).toEqual([table.rows[2], table.rows[7]]);
      expect((await readTaken(await store.take('all')))?.rows).toEqual(table.rows);
      expect(timers.mock.calls.length).toBe(0);
    } finally {
      timers.mockRestore();
      await store.close();
    }
  });
});
