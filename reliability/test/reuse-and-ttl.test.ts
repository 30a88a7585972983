// Figures 3 and 5: a used token stays dead, and the TTL is a sharp edge.
// - Sequential reuse after 0 s, 30 s and TTL−1 s gets a 404 byte-identical (status, headers, body)
//   to the 404 of a token that never existed: no oracle tells "used" from "unknown" or "expired".
// - An entry is served at TTL−1 s and gone at TTL+1 s; Redis's own PTTL, read right after the
//   tool call, is within (TTL−1 s, TTL].
// The memory store runs on fake time (vi.useFakeTimers: Date and its per-entry timers), Redis on
// a short real TTL, since its clock cannot be faked.
import { randomBytes } from 'node:crypto';
import { createRedisBodyStore, type RedisBodyStore } from '@s2sp/cache-redis';
import { generateToken } from '@s2sp/core';
import { createS2SPServer, type S2SPServer, silentLogger } from '@s2sp/server';
import { type RedisTestServer, startRedis } from '@s2sp/test-utils';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { bySize } from '../src/run-mode.js';
import { callToolInProcess, resultText } from './support/mcp.js';

const PUBLIC_URL = 'http://127.0.0.1:9'; // advertised only; these tests never open a socket to it
const ROWS = Array.from({ length: 5 }, (_, i) => ({ kind: `k${i}`, detail: `d${i}` }));

/** An answer reduced to what a client can observe: status, every header, the body bytes. */
interface Observed {
  readonly status: number;
  readonly headers: [string, string][];
  readonly body: string;
}

async function post(server: S2SPServer, path: string, body: unknown = {}): Promise<Observed> {
  const response = await server.app.request(`${PUBLIC_URL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    headers.push([name, value]);
  });
  return {
    status: response.status,
    headers: headers.sort(([a], [b]) => a.localeCompare(b)),
    body: await response.text(),
  };
}

function makeServer(options: { ttlSeconds: number; store?: RedisBodyStore }): S2SPServer {
  const server = createS2SPServer({
    name: 'ttl',
    version: '1.0.0',
    publicUrl: PUBLIC_URL,
    logger: silentLogger,
    ...options,
  });
  server.resourceTool('get_rows', { description: 'Rows.' }, () => ROWS);
  return server;
}

/** Calls the resource tool and returns the data-plane path of its resource_url. */
async function mint(server: S2SPServer): Promise<{ path: string; expiresAt: string }> {
  const result = await callToolInProcess(server.app, `${PUBLIC_URL}/mcp`, 'get_rows', {
    abstract_domains: 'kind',
  });
  if (result.isError) throw new Error(resultText(result));
  const { resource_url, expires_at } = result.structuredContent as {
    resource_url: string;
    expires_at: string;
  };
  return { path: new URL(resource_url).pathname, expiresAt: expires_at };
}

const unknownPath = () => `/s2sp/data/${generateToken()}`;

afterEach(() => {
  vi.useRealTimers();
});

describe('figure 3: sequential reuse (memory store, fake time)', () => {
  it('reuse after 0 s, 30 s and TTL−1 s → 404 byte-identical to the unknown-token 404', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const ttlSeconds = 600;
    const server = makeServer({ ttlSeconds });
    try {
      const identical: string[] = [];
      for (const afterMs of [0, 30_000, (ttlSeconds - 1) * 1000]) {
        const { path } = await mint(server);
        expect((await post(server, path, { row_ids: [1] })).status).toBe(200);
        vi.advanceTimersByTime(afterMs);
        const reused = await post(server, path, { row_ids: [1] });
        const unknown = await post(server, unknownPath(), { row_ids: [1] });
        expect(reused.status).toBe(404);
        expect(reused).toEqual(unknown);
        identical.push(`${afterMs / 1000} s`);
      }
      // The expired 404 is the same one too.
      const { path } = await mint(server);
      vi.advanceTimersByTime((ttlSeconds + 1) * 1000);
      expect(await post(server, path)).toEqual(await post(server, unknownPath()));
      recordFigure({
        id: '3.1',
        title:
          'Memory store: reuse after 0 s, 30 s, TTL−1 s (and expiry) answered with a 404 byte-identical to an unknown token’s (status, headers, body)',
        value: `${identical.length + 1}/4 identical`,
        target: '4/4',
        met: identical.length === 3,
      });
    } finally {
      await server.close();
    }
  });
});

describe('figure 5: TTL bounds (memory store, fake time)', () => {
  it('served at TTL−1 s, 404 at TTL+1 s, expires_at exactly TTL ahead', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const ttlSeconds = 600;
    const server = makeServer({ ttlSeconds });
    try {
      const mintedAt = Date.now();
      const early = await mint(server);
      const late = await mint(server);
      // To the whole second, rounded down: never later than the real expiry.
      const ttlAhead = mintedAt + ttlSeconds * 1000;
      expect(Date.parse(early.expiresAt)).toBe(ttlAhead - (ttlAhead % 1000));
      vi.advanceTimersByTime((ttlSeconds - 1) * 1000);
      const served = await post(server, early.path, { row_ids: [0] });
      vi.advanceTimersByTime(2000);
      const expired = await post(server, late.path, { row_ids: [0] });
      recordFigure({
        id: '5.1',
        title: 'Memory store (fake time, TTL 600 s): status at TTL−1 s / at TTL+1 s',
        value: `${served.status} / ${expired.status}`,
        target: '200 / 404',
        met: served.status === 200 && expired.status === 404,
      });
      expect(served.status).toBe(200);
      expect(expired).toEqual(await post(server, unknownPath(), { row_ids: [0] }));
      // Reclaimed by its timer, not by the request that found it expired.
      expect((await server.store.stats()).entries).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('figures 3 and 5 on Redis (real time)', () => {
  let redis: RedisTestServer;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    redis = await startRedis({ spawn: true });
    client = createClient({ url: redis.url });
    client.on('error', () => {});
    await client.connect();
  });
  afterAll(async () => {
    await client?.close();
    await redis?.stop();
  });

  const redisServer = (ttlSeconds: number) => {
    const keyPrefix = `rel-${randomBytes(4).toString('hex')}:`;
    const store = createRedisBodyStore({
      url: redis.url,
      keyPrefix,
      logger: { info() {}, warn() {}, error() {} },
    });
    const server = makeServer({ ttlSeconds, store });
    return {
      server,
      keyPrefix,
      [Symbol.asyncDispose]: async () => {
        await server.close();
        await store.close();
      },
    };
  };

  it('reuse right away → 404 byte-identical to the unknown-token 404', async () => {
    await using ctx = redisServer(600);
    const { path } = await mint(ctx.server);
    expect((await post(ctx.server, path)).status).toBe(200);
    const reused = await post(ctx.server, path);
    const unknown = await post(ctx.server, unknownPath());
    recordFigure({
      id: '3.2',
      title:
        'Redis store: reuse right after the 200 answered with the unknown-token 404, byte for byte',
      value: JSON.stringify(reused) === JSON.stringify(unknown) ? 'identical' : 'different',
      target: 'identical',
      met: JSON.stringify(reused) === JSON.stringify(unknown),
    });
    expect(reused.status).toBe(404);
    expect(reused).toEqual(unknown);
  });

  const ttlSeconds = bySize(2, 5);
  it(`TTL ${ttlSeconds} s: PTTL right after the tool call in (TTL−1 s, TTL], served at TTL−1 s, 404 at TTL+1 s`, async () => {
    await using ctx = redisServer(ttlSeconds);
    const ttlMs = ttlSeconds * 1000;
    const callStarted = Date.now();
    const early = await mint(ctx.server);
    // The entry's main key (cache-redis 0.2 adds its offsets and blocks beside it, same TTL).
    const keys = (await client.keys(`${ctx.keyPrefix}*`)).filter((key) => key.endsWith('}'));
    expect(keys).toHaveLength(1);
    const pttl = Number(await client.pTTL(keys[0] as string));
    const late = await mint(ctx.server);
    const lateReturned = Date.now();

    // The early entry was written after callStarted, so it lives until at least callStarted+TTL.
    await sleepUntil(callStarted + ttlMs - 1000);
    const served = await post(ctx.server, early.path, { row_ids: [0] });
    // The late entry was written before lateReturned, so it is gone by lateReturned+TTL.
    await sleepUntil(lateReturned + ttlMs + 1000);
    const expired = await post(ctx.server, late.path, { row_ids: [0] });

    recordFigure({
      id: '5.2',
      title: `Redis PTTL read right after the tool call (TTL ${ttlSeconds} s)`,
      value: pttl,
      unit: 'ms',
      target: `${ttlMs - 1000} < PTTL ≤ ${ttlMs}`,
      met: pttl > ttlMs - 1000 && pttl <= ttlMs,
    });
    recordFigure({
      id: '5.3',
      title: `Redis store (real time, TTL ${ttlSeconds} s): status at TTL−1 s / at TTL+1 s`,
      value: `${served.status} / ${expired.status}`,
      target: '200 / 404',
      met: served.status === 200 && expired.status === 404,
    });
    expect(pttl).toBeGreaterThan(ttlMs - 1000);
    expect(pttl).toBeLessThanOrEqual(ttlMs);
    expect(served.status).toBe(200);
    expect(expired).toEqual(await post(ctx.server, unknownPath(), { row_ids: [0] }));
  });
});

async function sleepUntil(at: number): Promise<void> {
  const wait = at - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
