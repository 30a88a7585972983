import { execFileSync } from 'node:child_process';
import { createRedisBodyStore } from '@s2sp/cache-redis';
import { type RedisTestServer, sendInline, startRedis } from '@s2sp/test-utils';
import type { StoreUnderTest } from './stores.js';

/** True when a `redis-server` binary is on PATH (or `REDIS_URL` names a server to use). */
export function redisAvailable(): boolean {
  if (process.env.REDIS_URL) return true;
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * An ephemeral `redis-server` (no persistence, `noeviction`) on a free loopback port, and the
 * Redis body store over it — started like the tests start theirs.
 */
export async function startRedisStore(): Promise<{
  store: StoreUnderTest;
  server: RedisTestServer;
}> {
  const server = await startRedis({ spawn: true, args: ['--maxmemory-policy', 'noeviction'] });
  let run = 0;
  const store: StoreUnderTest = {
    name: 'redis',
    // A fresh key prefix per use keeps runs apart; large tables need a generous command timeout.
    make: async () =>
      createRedisBodyStore({
        url: server.url,
        keyPrefix: `bench${run++}:`,
        commandTimeoutMs: 60_000,
      }),
    async usedMemory() {
      const info = await sendInline(server.port, 'INFO memory', 5000);
      const match = /used_memory:(\d+)/.exec(info);
      if (!match) throw new Error('Redis INFO memory has no used_memory');
      return Number(match[1]);
    },
    async flush() {
      await sendInline(server.port, 'FLUSHALL', 30_000);
    },
  };
  return { store, server };
}
