import { createRedisBodyStore } from '@s2sp/cache-redis';
import { S2SPResultSchema } from '@s2sp/core';
import { startRedis } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { httpClient, startProxy, TABLE_SERVER } from './support.js';

describe('the proxy with a Redis store', () => {
  it('keeps withheld rows in Redis, redeemable from a second proxy replica sharing it', async () => {
    await using redis = await startRedis();
    const keyPrefix = `proxy-test-${Date.now()}:`;
    const storeA = createRedisBodyStore({ url: redis.url, keyPrefix });
    const storeB = createRedisBodyStore({ url: redis.url, keyPrefix });
    try {
      await using a = await startProxy({
        upstream: TABLE_SERVER,
        store: storeA,
        tableTools: [{ name: 'rows' }],
      });
      await using b = await startProxy({ upstream: TABLE_SERVER, store: storeB });
      await using agent = await httpClient(a.listener.mcpUrl);
      const split = await agent.client.callTool({
        name: 'rows',
        arguments: { abstract_domains: 'city' },
      });
      const { resource_url } = S2SPResultSchema.parse(split.structuredContent);
      const path = new URL(resource_url ?? '').pathname;
      const redeemed = await fetch(`${b.listener.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"row_ids":[2]}',
      });
      expect(((await redeemed.json()) as { body: unknown }).body).toEqual([
        { _row_id: 2, id: 3, city: 'Chicago', state: 'IL', population: 2746388 },
      ]);
      const again = await fetch(resource_url ?? '', { method: 'POST', body: '' });
      expect(again.status).toBe(404);
    } finally {
      await storeA.close();
      await storeB.close();
    }
  });
});
