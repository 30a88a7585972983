import { S2SPError } from '@s2sp/core';
import { readTaken } from '@s2sp/core/testing';
import { type RedisTestServer, startRedis } from '@s2sp/test-utils';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMaxmemoryPolicy } from './eviction-policy.js';
import { createRedisBodyStore } from './redis-body-store.js';
import type { StoreLogger } from './store-logger.js';

function recorder(): StoreLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };
}

const table = { columns: ['a'], rows: ['{"_row_id":0,"a":1}'] };

describe('parseMaxmemoryPolicy', () => {
  it('reads the policy from INFO memory', () => {
    const info = '# Memory\r\nused_memory:1000\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n';
    expect(parseMaxmemoryPolicy(info)).toBe('noeviction');
    expect(parseMaxmemoryPolicy('maxmemory_policy:allkeys-lru')).toBe('allkeys-lru');
    expect(parseMaxmemoryPolicy('# Memory\r\nused_memory:1\r\n')).toBeUndefined();
  });
});

describe('the maxmemory-policy check', () => {
  let lru: RedisTestServer;
  let ok: RedisTestServer;

  beforeAll(async () => {
    [lru, ok] = await Promise.all([
      startRedis({ args: ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru'] }),
      startRedis({ spawn: true }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([lru?.stop(), ok?.stop()]);
  });

  it('reports noeviction as ok', async () => {
    const store = createRedisBodyStore({ url: ok.url, logger: recorder() });
    try {
      expect(await store.checkEvictionPolicy()).toEqual({ ok: true, policies: ['noeviction'] });
    } finally {
      await store.close();
    }
  });

  it('warns once about an evicting policy, and still works', async () => {
    const logger = recorder();
    const store = createRedisBodyStore({ url: lru.url, keyPrefix: 'warn:', logger });
    try {
      await store.put('k1', table, { ttlMs: 10_000 });
      await store.put('k2', table, { ttlMs: 10_000 });
      const warnings = logger.lines.filter((line) => line.includes('maxmemory-policy'));
      expect(warnings).toEqual([
        'warn Redis runs with maxmemory-policy allkeys-lru, so it may evict live S2SP entries and a fresh resource_url could fail. Run "CONFIG SET maxmemory-policy noeviction" on every Redis node (and set it in redis.conf), or give S2SP a Redis of its own.',
      ]);
      expect((await store.take('k1'))?.tableRows).toBe(1);
      const report = await store.checkEvictionPolicy();
      expect(report.ok).toBe(false);
      expect(report.policies).toEqual(['allkeys-lru']);
    } finally {
      await store.close();
    }
  });

  it('warns at start-up, before any put', async () => {
    const logger = recorder();
    const store = createRedisBodyStore({ url: lru.url, logger });
    try {
      for (let i = 0; i < 200 && logger.lines.length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      expect(logger.lines).toHaveLength(1);
      expect(logger.lines[0]).toContain('warn Redis runs with maxmemory-policy allkeys-lru');
    } finally {
      await store.close();
    }
  });

  it('with "enforce", refuses puts until the policy is fixed', async () => {
    const logger = recorder();
    const store = createRedisBodyStore({
      url: lru.url,
      keyPrefix: 'enforce:',
      evictionPolicyCheck: 'enforce',
      logger,
    });
    const admin = createClient({ url: lru.url });
    await admin.connect();
    try {
      const error = await store.put('k', table, { ttlMs: 10_000 }).catch((e: unknown) => e);
      expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
      expect((error as Error).message).toContain('CONFIG SET maxmemory-policy noeviction');
      expect(logger.lines.some((line) => line.startsWith('error Redis runs with'))).toBe(true);

      await admin.configSet('maxmemory-policy', 'noeviction');
      // checkEvictionPolicy() (a readiness probe, say) refreshes the verdict at once.
      expect((await store.checkEvictionPolicy()).ok).toBe(true);
      await store.put('k', table, { ttlMs: 10_000 });
      expect((await readTaken(await store.take('k')))?.rows).toEqual(table.rows);
    } finally {
      await admin.configSet('maxmemory-policy', 'allkeys-lru');
      await admin.close();
      await store.close();
    }
  });

  it('with "off", does not ask', async () => {
    const logger = recorder();
    const store = createRedisBodyStore({ url: lru.url, evictionPolicyCheck: 'off', logger });
    try {
      await store.put('k', table, { ttlMs: 10_000 });
      expect(logger.lines).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
