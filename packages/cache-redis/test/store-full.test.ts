import { S2SPError } from '@s2sp/core';
import { makeStoredTable } from '@s2sp/core/testing';
import { type RedisTestServer, startRedis } from '@s2sp/test-utils';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisBodyStore } from '../src/index.js';
import { eventually, quietLogger, uniquePrefix } from './helpers.js';

// A Redis at its maxmemory with the noeviction policy refuses writes with OOM. The store must
// report that as store_full with advice, keep every live entry, and accept puts again once
// entries are taken or expire.

let redis: RedisTestServer;
let admin: ReturnType<typeof createClient>;

beforeAll(async () => {
  // An empty Redis 7 uses about 0.9 MB, so 2 MB leaves room for a few dozen entries.
  redis = await startRedis({ args: ['--maxmemory', '2mb', '--maxmemory-policy', 'noeviction'] });
  admin = createClient({ url: redis.url });
  await admin.connect();
});

afterAll(async () => {
  await admin?.close();
  await redis?.stop();
});

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of admin.scanIterator({ MATCH: `${prefix}*` })) keys.push(...batch);
  return keys;
}

describe('a Redis that is out of memory', () => {
  it('refuses new entries with store_full, keeps the live ones, and recovers when they are taken', async () => {
    const prefix = uniquePrefix();
    const store = createRedisBodyStore({ url: redis.url, keyPrefix: prefix, logger: quietLogger });
    try {
      const stored: string[] = [];
      let refused: unknown;
      for (let i = 0; i < 500 && refused === undefined; i++) {
        await store.put(`k${i}`, makeStoredTable(200, `r${i}`), { ttlMs: 120_000 }).then(
          () => stored.push(`k${i}`),
          (error: unknown) => {
            refused = error;
          },
        );
      }
      expect(S2SPError.isInstance(refused) && refused.code).toBe('store_full');
      expect((refused as Error).message).toBe(
        'The S2SP cache (Redis) is out of memory, so this result cannot be cached. Retry in a few minutes when older results expire, ask for fewer rows, or call the tool with mode="sync"; the operator can raise Redis maxmemory.',
      );
      expect(stored.length).toBeGreaterThan(0);

      // noeviction: every entry stored before the refusal is still there, and taking works.
      for (const key of stored) expect((await store.take(key))?.tableRows).toBe(200);

      // Taking freed the memory (UNLINK frees large values in the background): puts work again.
      await eventually('Redis accepts writes again', async () => {
        await store.put('after', makeStoredTable(40), { ttlMs: 120_000 });
        return true;
      });
      expect((await store.take('after'))?.tableRows).toBe(40);
    } finally {
      await store.close();
    }
  });

  it('leaves nothing behind when a table written in chunks is refused halfway', async () => {
    const prefix = uniquePrefix();
    const store = createRedisBodyStore({ url: redis.url, keyPrefix: prefix, logger: quietLogger });
    try {
      // About 2.7 MB in chunks of 1000 rows: more than the whole Redis may hold.
      const error = await store
        .put('huge', makeStoredTable(30_000), { ttlMs: 120_000 })
        .catch((e: unknown) => e);
      expect(S2SPError.isInstance(error) && error.code).toBe('store_full');
      expect(await store.take('huge')).toBeUndefined();
      await eventually(
        'the partial entry is removed',
        async () => (await keysUnder(prefix)).length === 0,
      );
      expect(await store.stats()).toEqual({ entries: 0, rows: 0, bytes: 0 });
    } finally {
      await store.close();
    }
  });
});
