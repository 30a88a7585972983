import { generateToken, tokenStorageKey } from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { codeAndDataOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { createS2SPEdge } from './edge/s2sp-edge.js';
import { loadConsumerEnv, loadEdgeEnv, loadServerEnv } from './env.js';
import { silentLogger } from './logger.js';
import { prepareTable, serializeTable } from './resource/table.js';
import { resolveOptions } from './runtime/options.js';
import { createS2SP } from './runtime/s2sp.js';
import { createS2SPServer } from './server.js';

describe('createS2SP, createS2SPServer and createS2SPEdge options', () => {
  it('apply their defaults once', () => {
    const resolved = resolveOptions({ logger: silentLogger });
    expect(resolved).toMatchObject({
      ttlMs: 600_000,
      maxSyncBytes: 3 * 1024 * 1024,
      maxDataRequestBytes: 1024 * 1024,
      requestBodyTimeoutMs: 10_000,
      maxEntriesPerClient: 1000,
      maxDataRowIds: 10_000,
      tokenBudget: 8000,
      abstractEncoding: 'json',
      toolGuidance: 'description',
      trustedHosts: [],
      ownsStore: true,
    });
    expect(resolved.consumer).toMatchObject({
      destinations: 'public',
      timeoutMs: 30_000,
      maxResponseBytes: 64 * 1024 * 1024,
      maxConcurrentFetches: 4,
      maxQueuedFetches: 16,
    });
  });

  it.each([
    [{ maxEntriesPerClient: 0 }, 'maxEntriesPerClient'],
    [{ maxDataRowIds: 2.5 }, 'maxDataRowIds'],
    [{ consumer: { timeoutMs: -1 } }, 'consumer.timeoutMs'],
    [{ consumer: { allowedOrigins: ['ftp://x'] } }, 'consumer.allowedOrigins'],
    [{ consumer: { maxQueuedFetches: -1 } }, 'consumer.maxQueuedFetches'],
    [{ requestBodyTimeoutMs: 50 }, 'requestBodyTimeoutMs'],
    [{ abstractEncoding: 'yaml' }, 'abstractEncoding'],
    [{ trustedHosts: ['a b'] }, 'trustedHosts'],
    [{ maxCacheBytes: 0 }, 'maxCacheBytes'],
    [{ ttlSeconds: 0 }, 'ttlSeconds'],
    [{ ttlSeconds: 86_401 }, 'ttlSeconds'],
  ])('createS2SP refuses %j, naming %s', (options, option) => {
    expect(
      codeAndDataOf(() => createS2SP({ logger: silentLogger, ...(options as object) })),
    ).toEqual(['invalid_config', { option }]);
  });

  it.each([
    [{ name: 'x', version: '' }, 'version'],
    [{ name: 'x', version: '1', mcpPath: 'mcp' }, 'mcpPath'],
    [{ name: 'x', version: '1', maxMcpBatchSize: 0 }, 'maxMcpBatchSize'],
    [{ name: 'x', version: '1', auth: { bearerTokens: ['short'] } }, 'auth.bearerTokens'],
  ])('createS2SPServer refuses %j, naming %s', (options, option) => {
    expect(codeAndDataOf(() => createS2SPServer(options as never))).toEqual([
      'invalid_config',
      { option },
    ]);
  });

  it('the environment round-trips into the factories that read it', () => {
    const edgeEnv = loadEdgeEnv({
      S2SP_ALLOWED_HOSTS: 'mcp.example.com',
      S2SP_AUTH_TOKENS: 'a-long-token-0123456789',
      S2SP_BODY_TIMEOUT_MS: '2500',
    });
    expect(createS2SPEdge(edgeEnv).options).toMatchObject({
      allowedHosts: ['mcp.example.com'],
      requestBodyTimeoutMs: 2500,
      auth: { bearerTokens: ['a-long-token-0123456789'] },
    });
    const consumer = loadConsumerEnv({
      S2SP_ALLOWED_ORIGINS: 'http://127.0.0.1:3001/',
      S2SP_CONSUMER_DESTINATIONS: 'ANY',
      S2SP_MAX_CONCURRENT_FETCHES: '8',
      S2SP_FETCH_RETRIES: '0',
    });
    expect(resolveOptions({ logger: silentLogger, consumer }).consumer).toMatchObject({
      allowedOrigins: ['http://127.0.0.1:3001'],
      destinations: 'any',
      maxConcurrentFetches: 8,
      fetchRetries: 0,
    });
    const { retryGraceMs } = loadServerEnv({ S2SP_RETRY_GRACE_MS: '2500' }, { port: 0 });
    expect(resolveOptions({ logger: silentLogger, retryGraceMs }).retryGraceMs).toBe(2500);
    // S2SP_TTL_SECONDS is read once, by the option's own rule: what the variable takes, the
    // factory takes (a fraction of a second too), and the other way round.
    for (const text of ['1.5', '86400']) {
      const { ttlSeconds } = loadServerEnv({ S2SP_TTL_SECONDS: text }, { port: 0 });
      expect(resolveOptions({ logger: silentLogger, ttlSeconds }).ttlMs).toBe(Number(text) * 1000);
    }
  });

  it.each([[-1], [600_001], [1.5], ['60000']])(
    'createS2SPServer refuses retryGraceMs %j',
    (retryGraceMs) => {
      expect(
        codeAndDataOf(() => createS2SPServer({ name: 'x', version: '1', retryGraceMs } as never)),
      ).toEqual(['invalid_config', { option: 'retryGraceMs' }]);
    },
  );

  it.each([
    [undefined, 200],
    [0, 404],
  ])(
    "createS2SPServer's data plane with retryGraceMs %j answers a repeat with %i",
    async (retryGraceMs, repeat) => {
      const store = createMemoryStore();
      const server = createS2SPServer({
        name: 'x',
        version: '1',
        logger: silentLogger,
        store,
        ...(retryGraceMs !== undefined && { retryGraceMs }),
      });
      const token = generateToken();
      await store.put(await tokenStorageKey(token), serializeTable(prepareTable([{ a: 1 }])), {
        ttlMs: 60_000,
      });
      const redeem = () =>
        server.s2sp.dataPlane.request(`/s2sp/data/${token}`, {
          method: 'POST',
          body: '{}',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': 'k'.repeat(43),
          },
        });
      expect((await redeem()).status).toBe(200);
      expect((await redeem()).status).toBe(repeat);
      await server.close();
      await store.close();
    },
  );
});
