import { S2SPResultSchema } from '@s2sp/core';
import { resourceUrlGone } from '@s2sp/core/advice';
import { connectMcpClient, type RedisTestServer, startRedis } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quietLogger, uniquePrefix } from './helpers.js';
import { atReplica, ROWS, redeem, startReplica } from './server-fixture.js';

let redis: RedisTestServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

async function issueToken(mcpUrl: string): Promise<string> {
  await using agent = await connectMcpClient(mcpUrl);
  const result = await agent.call('get_rows', { abstract_domains: 'kind' });
  expect(result.isError).toBeFalsy();
  const s2sp = S2SPResultSchema.parse(result.structuredContent);
  expect(s2sp.resource_url).toMatch(/\/s2sp\/data\/[A-Za-z0-9_-]{43}$/);
  return s2sp.resource_url as string;
}

describe('two resource-server replicas sharing one Redis', () => {
  it('redeems at replica B a token issued by replica A', async () => {
    const keyPrefix = uniquePrefix();
    await using a = await startReplica({ url: redis.url, keyPrefix, logger: quietLogger });
    await using b = await startReplica({ url: redis.url, keyPrefix, logger: quietLogger });
    const resourceUrl = await issueToken(a.http.mcpUrl);
    expect(resourceUrl.startsWith(a.http.url)).toBe(true);

    const { status, json } = await redeem(atReplica(resourceUrl, b), {
      row_ids: [3, 0, 42],
      columns: ['detail'],
    });
    expect(status).toBe(200);
    expect(json).toEqual({
      body: [
        { _row_id: 0, detail: 'detail-0' },
        { _row_id: 3, detail: 'detail-3' },
      ],
      total_rows: 2,
      columns_returned: ['_row_id', 'detail'],
      missing_row_ids: [42],
    });
    // Used up, on both replicas.
    expect((await redeem(resourceUrl)).status).toBe(404);
    expect((await redeem(atReplica(resourceUrl, b))).status).toBe(404);
  });

  it('gives exactly one of 100 concurrent redemptions spread over both replicas a 200', async () => {
    const keyPrefix = uniquePrefix();
    await using a = await startReplica({ url: redis.url, keyPrefix, logger: quietLogger });
    await using b = await startReplica({ url: redis.url, keyPrefix, logger: quietLogger });
    const resourceUrl = await issueToken(b.http.mcpUrl);
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        redeem(atReplica(resourceUrl, i % 2 === 0 ? a : b), i % 3 ? { row_ids: [i % 8] } : {}),
      ),
    );
    const ok = outcomes.filter((o) => o.status === 200);
    const gone = outcomes.filter((o) => o.status === 404);
    expect(ok).toHaveLength(1);
    expect(gone).toHaveLength(99);
    for (const { json } of gone)
      expect(json).toEqual({
        error: {
          code: 'not_found',
          message: resourceUrlGone,
          status: 404,
        },
      });
    expect((await a.store.stats()).entries).toBe(0);
  });

  it('serves a token issued before a restart from the new server instance', async () => {
    const keyPrefix = uniquePrefix();
    const before = await startReplica({ url: redis.url, keyPrefix, logger: quietLogger });
    const resourceUrl = await issueToken(before.http.mcpUrl);
    await before.close();

    await using after = await startReplica({ url: redis.url, keyPrefix, logger: quietLogger });
    const { status, json } = await redeem(atReplica(resourceUrl, after));
    expect(status).toBe(200);
    expect((json as { body: unknown[] }).body).toEqual(
      ROWS.map((row, i) => ({ _row_id: i, ...row })),
    );
  });
});
