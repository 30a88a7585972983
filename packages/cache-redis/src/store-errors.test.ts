import { S2SPError } from '@s2sp/core';
import { ifItPersists, retryShortly } from '@s2sp/core/advice';
import { type RedisTestServer, startRedis } from '@s2sp/test-utils';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryRedemption } from './advice.js';
import {
  isNoScriptError,
  isOutOfMemoryError,
  RedisLateError,
  RedisTimeoutError,
  toStoreError,
  withTimeout,
} from './store-errors.js';

// Real errors from real clients: the mapping must not depend on how a test imagines them.
let redis: RedisTestServer;
let nodeRedis: ReturnType<typeof createClient>;
let ioredis: Redis;

beforeAll(async () => {
  redis = await startRedis();
  nodeRedis = createClient({ url: redis.url });
  await nodeRedis.connect();
  ioredis = new Redis(redis.url);
});

afterAll(async () => {
  await nodeRedis?.close();
  ioredis?.disconnect();
  await redis?.stop();
});

async function nodeRedisError(args: string[]): Promise<unknown> {
  return nodeRedis.sendCommand(args).then(
    () => undefined,
    (error: unknown) => error,
  );
}

async function ioredisError(args: string[]): Promise<unknown> {
  return ioredis.call(args[0] as string, args.slice(1)).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('toStoreError', () => {
  it('maps a refused connection to unavailable, without the address in the message', async () => {
    const client = createClient({
      url: 'redis://127.0.0.1:1',
      socket: { reconnectStrategy: false, connectTimeout: 1000 },
    });
    client.on('error', () => {});
    const refused = await client.connect().then(
      () => undefined,
      (error: unknown) => error,
    );
    const mapped = toStoreError(refused, 'take');
    expect(mapped.code).toBe('unavailable');
    expect(mapped.message).toBe(
      `The S2SP cache is unavailable: the connection to Redis is down. ${retryRedemption} ${ifItPersists('Redis')}`,
    );
    expect(mapped.message).not.toContain('127.0.0.1');
    expect(mapped.cause).toBe(refused);
  });

  it('maps an ioredis command refused while offline to unavailable', async () => {
    const offline = new Redis({ port: 1, enableOfflineQueue: false, lazyConnect: true });
    const error = await offline.call('GET', ['k']).catch((e: unknown) => e);
    const mapped = toStoreError(error, 'put');
    expect(mapped.code).toBe('unavailable');
    expect(mapped.message).toContain('call it with mode="sync", which needs no cache');
    offline.disconnect();
  });

  it('maps a timeout and a late answer to unavailable', () => {
    expect(toStoreError(new RedisTimeoutError(250), 'stats').message).toBe(
      `The S2SP cache is unavailable: Redis did not answer within 250 ms. ${retryShortly} ${ifItPersists('Redis')}`,
    );
    expect(toStoreError(new RedisLateError(), 'take').code).toBe('unavailable');
  });

  it('maps unexpected error replies of both clients to internal', async () => {
    for (const error of [
      await nodeRedisError(['NOSUCHCOMMAND']),
      await ioredisError(['NOSUCHCOMMAND']),
    ]) {
      const mapped = toStoreError(error, 'put');
      expect(mapped.code).toBe('internal');
      expect(mapped.message).toContain('Redis refused a command of the S2SP cache (ERR)');
    }
  });

  it('recognises NOSCRIPT from both clients', async () => {
    const args = ['EVALSHA', 'f'.repeat(40), '0'];
    expect(isNoScriptError(await nodeRedisError(args))).toBe(true);
    expect(isNoScriptError(await ioredisError(args))).toBe(true);
    expect(isNoScriptError(await nodeRedisError(['NOSUCHCOMMAND']))).toBe(false);
  });

  it('maps an OOM reply to store_full with advice', async () => {
    // A real OOM needs a full Redis (see test/store-full.test.ts); its reply text is this.
    const oom = new Error("OOM command not allowed when used memory > 'maxmemory'.");
    expect(isOutOfMemoryError(oom)).toBe(true);
    const mapped = toStoreError(oom, 'put');
    expect(mapped.code).toBe('store_full');
    expect(mapped.message).toContain('Redis) is out of memory');
    expect(mapped.message).toContain('the operator can raise Redis maxmemory');
  });

  it('maps what the engine throws (a bug, not Redis) to internal, never to unavailable', () => {
    for (const error of [
      new TypeError('rowIds.map is not a function'),
      new RangeError('offset is out of bounds'),
    ]) {
      const mapped = toStoreError(error, 'take');
      expect(mapped.code).toBe('internal');
      expect(mapped.cause).toBe(error);
      expect(mapped.message).toContain(error.name);
    }
    // A transport failure stays an outage.
    expect(toStoreError(new Error('connect ECONNREFUSED'), 'take').code).toBe('unavailable');
  });

  it('keeps S2SP errors as they are', () => {
    const original = new S2SPError('store_full', 'full');
    expect(toStoreError(original, 'put')).toBe(original);
  });
});

describe('withTimeout', () => {
  it('passes a result through', async () => {
    expect(await withTimeout(Promise.resolve(7), 1000)).toBe(7);
  });

  it("passes the promise's own error through, not a timeout", async () => {
    const own = new Error('refused');
    expect(await withTimeout(Promise.reject(own), 1000).catch((e: unknown) => e)).toBe(own);
  });

  it('rejects with RedisTimeoutError when the promise is not settled in time', async () => {
    const never = new Promise<never>(() => {});
    const error = await withTimeout(never, 20).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisTimeoutError);
    expect((error as RedisTimeoutError).ms).toBe(20);
  });

  it('names the whole time limit when only part of it was left', async () => {
    const error = await withTimeout(new Promise<never>(() => {}), 5, 1000).catch((e: unknown) => e);
    expect((error as RedisTimeoutError).ms).toBe(1000);
    expect(toStoreError(error, 'take').message).toContain('Redis did not answer within 1000 ms');
  });

  it('swallows a late rejection of the abandoned promise', async () => {
    const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('late')), 30));
    await expect(withTimeout(late, 5)).rejects.toBeInstanceOf(RedisTimeoutError);
    await new Promise((resolve) => setTimeout(resolve, 50)); // an unhandled rejection would fail the run
  });
});

describe('reconnectDelay', () => {
  it('backs off from 50 ms to at most 1.1 s, so a returning Redis is noticed within about a second', async () => {
    const { reconnectDelay } = await import('./owned-client.js');
    expect(reconnectDelay(0)).toBeGreaterThanOrEqual(50);
    expect(reconnectDelay(0)).toBeLessThan(150);
    for (let retries = 0; retries < 50; retries++)
      expect(reconnectDelay(retries)).toBeLessThan(1100);
    expect(reconnectDelay(40)).toBeGreaterThanOrEqual(1000);
  });
});
