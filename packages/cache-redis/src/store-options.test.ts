import { S2SPError } from '@s2sp/core';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { createRedisBodyStore } from './redis-body-store.js';
import type { RedisBodyStoreOptions } from './store-options.js';
import { resolveStoreOptions } from './store-options.js';

const quiet = { info() {}, warn() {}, error() {} };

function configError(options: unknown): S2SPError {
  try {
    createRedisBodyStore(options as RedisBodyStoreOptions);
  } catch (error) {
    if (S2SPError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('createRedisBodyStore accepted the options');
}

describe('createRedisBodyStore options', () => {
  it('fills in the defaults for a url', () => {
    const resolved = resolveStoreOptions({ url: 'redis://localhost:6379' });
    expect(resolved).toMatchObject({
      url: 'redis://localhost:6379',
      client: undefined,
      keyPrefix: 's2sp:',
      maxBytes: undefined,
      commandTimeoutMs: 5000,
      connectTimeoutMs: 5000,
      evictionPolicyCheck: 'warn',
    });
  });

  it('accepts rediss:// URLs with credentials and a database', () => {
    const resolved = resolveStoreOptions({ url: 'rediss://user:pw@cache.example.com:6380/2' });
    expect(resolved.url).toBe('rediss://user:pw@cache.example.com:6380/2');
  });

  it('needs a url or a client', () => {
    const error = configError({});
    expect(error.code).toBe('invalid_config');
    expect(error.data).toEqual({ option: 'url' });
    expect(configError(undefined).code).toBe('invalid_config');
  });

  it('refuses both a url and a client', () => {
    const client = new Redis({ lazyConnect: true });
    const error = configError({ url: 'redis://localhost', client });
    expect(error.code).toBe('invalid_config');
    expect(error.data).toEqual({ option: 'client' });
  });

  it('refuses URLs that are not redis:// or rediss://, without echoing them', () => {
    for (const url of ['http://localhost:6379', 'localhost:6379', '', 'redis://', 42]) {
      const error = configError({ url });
      expect(error.code).toBe('invalid_config');
      expect(error.data).toEqual({ option: 'url' });
    }
    const secret = configError({ url: 'http://admin:hunter2@localhost' });
    expect(secret.message).not.toContain('hunter2');
  });

  it('refuses a client of no known kind', () => {
    // The last one has node-redis Sentinel's shape, whose sendCommand takes other arguments.
    const sentinelLike = {
      sendCommand() {},
      on() {},
      connect() {},
      isReady: true,
      getSentinelNode() {},
    };
    for (const client of [{}, { get() {} }, 'redis://localhost', 42, sentinelLike]) {
      const error = configError({ client });
      expect(error.code).toBe('invalid_config');
      expect(error.data).toEqual({ option: 'client' });
    }
  });

  it('recognises the four client kinds', () => {
    const io = new Redis({ lazyConnect: true });
    expect(resolveStoreOptions({ client: io }).clientKind).toBe('ioredis');
    const nodeRedis = createClient();
    expect(resolveStoreOptions({ client: nodeRedis }).clientKind).toBe('node-redis');
  });

  it('refuses a client with a keyPrefix of its own', () => {
    const io = new Redis({ lazyConnect: true, keyPrefix: 'app:' });
    const error = configError({ client: io });
    expect(error.code).toBe('invalid_config');
    expect(error.data).toEqual({ option: 'client' });
  });

  it('refuses bad key prefixes', () => {
    for (const keyPrefix of ['', 'a{b}:', 'a*', 'a?', 'sp ace:', 'x'.repeat(65), 7, 'a[1]']) {
      const error = configError({ url: 'redis://localhost', keyPrefix });
      expect(error.code).toBe('invalid_config');
      expect(error.data).toEqual({ option: 'keyPrefix' });
    }
  });

  it('accepts good key prefixes', () => {
    for (const keyPrefix of ['s2sp:', 'myapp:s2sp:', 'a', 'team/x|y_z-1.']) {
      expect(resolveStoreOptions({ url: 'redis://localhost', keyPrefix }).keyPrefix).toBe(
        keyPrefix,
      );
    }
  });

  it('refuses a maxBytes that is not a positive whole number', () => {
    for (const maxBytes of [0, -1, 1.5, Number.NaN, '1000', Number.POSITIVE_INFINITY]) {
      const error = configError({ url: 'redis://localhost', maxBytes });
      expect(error.code).toBe('invalid_config');
      expect(error.data).toEqual({ option: 'maxBytes' });
    }
  });

  it('takes a nearCacheBytes of 0 (none) or more, 64 MiB by default, and refuses the rest', () => {
    expect(resolveStoreOptions({ url: 'redis://localhost' }).nearCacheBytes).toBe(64 * 1024 ** 2);
    expect(
      resolveStoreOptions({ url: 'redis://localhost', nearCacheBytes: 0 }).nearCacheBytes,
    ).toBe(0);
    for (const nearCacheBytes of [-1, 1.5, Number.NaN, '1000', Number.POSITIVE_INFINITY]) {
      const error = configError({ url: 'redis://localhost', nearCacheBytes });
      expect(error.code).toBe('invalid_config');
      expect(error.data).toEqual({ option: 'nearCacheBytes' });
    }
  });

  it('refuses timeouts that are not whole milliseconds from 1 to 600000', () => {
    for (const name of ['commandTimeoutMs', 'connectTimeoutMs']) {
      for (const value of [0, -1, 2.5, 600_001, '100']) {
        const error = configError({ url: 'redis://localhost', [name]: value });
        expect(error.code).toBe('invalid_config');
        expect(error.data).toEqual({ option: name });
      }
    }
  });

  it('refuses an unknown evictionPolicyCheck and a logger without methods', () => {
    for (const [options, option] of [
      [{ evictionPolicyCheck: 'strict' }, 'evictionPolicyCheck'],
      [{ logger: { warn() {} } }, 'logger'],
    ] as const) {
      const error = configError({ url: 'redis://localhost', ...options });
      expect([error.code, error.data]).toEqual(['invalid_config', { option }]);
    }
  });

  it('creates and closes a url store without Redis running, and then refuses to work', async () => {
    // Port 1 never runs Redis: the store must neither throw nor crash on the connection errors.
    const store = createRedisBodyStore({ url: 'redis://127.0.0.1:1', logger: quiet });
    expect(store.clientKind).toBe('node-redis');
    await store.close();
    const error = await store.take('a').catch((e: unknown) => e);
    expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
    await store.close(); // idempotent
  });

  it('refuses storage keys that could break the key layout', async () => {
    const store = createRedisBodyStore({ url: 'redis://127.0.0.1:1', logger: quiet });
    try {
      for (const key of ['', 'a}b', '{x}', 'a b', 'k'.repeat(129)]) {
        const error = await store.take(key).catch((e: unknown) => e);
        expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
        const putError = await store
          .put(key, { columns: [], rows: [] }, { ttlMs: 1000 })
          .catch((e: unknown) => e);
        expect(S2SPError.isInstance(putError) && putError.code).toBe('invalid_config');
      }
    } finally {
      await store.close();
    }
  });
});
