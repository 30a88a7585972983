import { type RedisTestServer, startRedis } from '@s2sp/test-utils';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisBodyStore } from '../src/index.js';
import { eventually, quietLogger, recordingLogger, uniquePrefix } from './helpers.js';

let redis: RedisTestServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const table = { columns: ['n'], rows: ['{"_row_id":0,"n":1}'] };

async function markerOf(prefix: string): Promise<{ value: string | null; ttl: number }> {
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    return { value: await client.get(`${prefix}owner`), ttl: await client.pTTL(`${prefix}owner`) };
  } finally {
    await client.close();
  }
}

describe('the owner marker of a key prefix', () => {
  it('writes <prefix>owner with a TTL, and a replica of the same app does not warn', async () => {
    const keyPrefix = uniquePrefix();
    const logA = recordingLogger();
    const logB = recordingLogger();
    const a = createRedisBodyStore({
      url: redis.url,
      keyPrefix,
      owner: 'weather-alerts',
      logger: logA,
    });
    await eventually(
      'the marker is written',
      async () => (await markerOf(keyPrefix)).value !== null,
    );
    const b = createRedisBodyStore({
      url: redis.url,
      keyPrefix,
      owner: 'weather-alerts',
      logger: logB,
    });
    try {
      await b.put('k1', table, { ttlMs: 60_000 });
      const marker = await markerOf(keyPrefix);
      expect(marker.value).toBe('weather-alerts');
      expect(marker.ttl).toBeGreaterThan(50_000);
      expect(marker.ttl).toBeLessThanOrEqual(60_000);
      // The marker is not an entry: stats count only the one put.
      expect(await a.stats()).toEqual({ entries: 1, rows: 1, bytes: expect.any(Number) });
      expect([...logA.lines, ...logB.lines].filter((line) => line.startsWith('warn'))).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('warns once when another app already holds the prefix, naming both and nothing secret', async () => {
    const keyPrefix = uniquePrefix();
    const first = createRedisBodyStore({
      url: redis.url,
      keyPrefix,
      owner: 'weather-alerts',
      logger: quietLogger,
    });
    await eventually(
      'the marker is written',
      async () => (await markerOf(keyPrefix)).value !== null,
    );
    const warnings: { message: string; fields: unknown }[] = [];
    const second = createRedisBodyStore({
      url: `${redis.url}`,
      keyPrefix,
      owner: 's2sp-proxy',
      logger: { ...quietLogger, warn: (message, fields) => warnings.push({ message, fields }) },
    });
    try {
      await eventually('the warning is logged', () => warnings.length > 0);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toMatch(/another app already uses this key prefix/);
      expect(warnings[0]?.fields).toEqual({
        keyPrefix,
        owner: 's2sp-proxy',
        otherOwner: 'weather-alerts',
      });
      // The first app keeps its claim; the second never overwrites it.
      expect((await markerOf(keyPrefix)).value).toBe('weather-alerts');
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('writes no marker without owner, and refuses an owner with spaces', async () => {
    const keyPrefix = uniquePrefix();
    const store = createRedisBodyStore({ url: redis.url, keyPrefix, logger: quietLogger });
    try {
      await store.put('k1', table, { ttlMs: 60_000 });
      expect((await markerOf(keyPrefix)).value).toBeNull();
    } finally {
      await store.close();
    }
    expect(() => createRedisBodyStore({ url: redis.url, owner: 'my app' })).toThrow(
      expect.objectContaining({
        code: 'invalid_config',
        data: expect.objectContaining({ option: 'owner' }),
      }),
    );
  });
});
