import { ErrorBodySchema, S2SPError, S2SPResultSchema, tokenStorageKey } from '@s2sp/core';
import { makeStoredTable, readTaken } from '@s2sp/core/testing';
import { connectMcpClient, type RedisTestServer, startRedis, textOf } from '@s2sp/test-utils';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisBodyStore } from '../src/index.js';
import { eventually, quietLogger, recordingLogger, uniquePrefix } from './helpers.js';
import { atReplica, ROWS, redeem, startReplica } from './server-fixture.js';

// Redis fails under a running server: killed (and restarted from its append-only file, so that
// entries cached before the crash survive it) or frozen (SIGSTOP: connections stay open, nothing
// answers). Every operation must fail in bounded time with advice, nothing may crash, service
// must come back by itself, and a redemption that failed must not have used the token up.

let redis: RedisTestServer;
beforeAll(async () => {
  redis = await startRedis({ args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
});
afterAll(async () => {
  await redis?.stop();
});

async function callTool(mcpUrl: string, args: Record<string, unknown>) {
  await using agent = await connectMcpClient(mcpUrl);
  return await agent.call('get_rows', args);
}

const UNAVAILABLE_PREFIX = 'The S2SP cache is unavailable: ';

describe('Redis killed mid-flow and restarted', () => {
  it('fails tool calls and redemptions fast with advice, then serves the old token again', async () => {
    const logger = recordingLogger();
    await using replica = await startReplica({
      url: redis.url,
      keyPrefix: uniquePrefix(),
      commandTimeoutMs: 1000,
      connectTimeoutMs: 1000,
      logger,
    });
    const issued = S2SPResultSchema.parse(
      (await callTool(replica.http.mcpUrl, { abstract_domains: 'kind' })).structuredContent,
    );
    const resourceUrl = issued.resource_url as string;

    await redis.kill('SIGKILL');

    // The tool call: an MCP tool error an LLM can act on, not a hang or a crash.
    const failed = await callTool(replica.http.mcpUrl, { abstract_domains: 'kind' });
    expect(failed.isError).toBe(true);
    expect(textOf(failed).startsWith(UNAVAILABLE_PREFIX)).toBe(true);
    expect(textOf(failed)).toContain(
      'Retry the tool call in a few seconds, or call it with mode="sync", which needs no cache.',
    );
    // Sync mode needs no cache, so it keeps working.
    const sync = await callTool(replica.http.mcpUrl, { abstract_domains: 'kind', mode: 'sync' });
    expect(sync.isError).toBeFalsy();
    expect(S2SPResultSchema.parse(sync.structuredContent).body).toHaveLength(ROWS.length);

    // The redemption: 503 in the protocol's error shape.
    const down = await redeem(resourceUrl, { row_ids: [1] });
    expect(down.status).toBe(503);
    const body = ErrorBodySchema.parse(down.json);
    expect(body.error.code).toBe('unavailable');
    expect(body.error.status).toBe(503);
    expect(body.error.message.startsWith(UNAVAILABLE_PREFIX)).toBe(true);
    expect(body.error.message).toContain('Retry the same request in a few seconds');
    // Health does not depend on Redis.
    expect((await fetch(`${replica.http.url}/s2sp/health`)).status).toBe(200);

    await redis.restart();

    // Service resumes by itself: no restart of the server, no manual reconnect.
    await eventually('the tool works again', async () => {
      const result = await callTool(replica.http.mcpUrl, { abstract_domains: 'kind' });
      return result.isError !== true;
    });
    const again = await redeem(resourceUrl, { row_ids: [1] });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({
      body: [{ _row_id: 1, ...ROWS[1] }],
      total_rows: 1,
      columns_returned: ['_row_id', 'kind', 'detail', 'score'],
    });

    // One line when the outage starts and one when it ends, not one per reconnect attempt.
    expect(logger.lines.filter((line) => line.includes('connection lost'))).toHaveLength(1);
    expect(logger.lines.filter((line) => line.includes('connected again'))).toHaveLength(1);
    const token = resourceUrl.split('/').pop() as string;
    for (const line of [...logger.lines, textOf(failed), body.error.message]) {
      expect(line).not.toContain(token);
      expect(line).not.toContain(await tokenStorageKey(token));
      expect(line).not.toContain(String(redis.port));
    }
  });

  it('starts while Redis is down, fails fast, and works once Redis is up', async () => {
    await redis.kill('SIGKILL');
    const store = createRedisBodyStore({
      url: redis.url,
      keyPrefix: uniquePrefix(),
      commandTimeoutMs: 1000,
      connectTimeoutMs: 1000,
      logger: quietLogger,
    });
    try {
      const error = await store
        .put('k', makeStoredTable(2), { ttlMs: 60_000 })
        .catch((e: unknown) => e);
      expect(S2SPError.isInstance(error) && error.code).toBe('unavailable');
      expect(await store.stats().catch((e: unknown) => S2SPError.isInstance(e) && e.code)).toBe(
        'unavailable',
      );
      await redis.restart();
      await eventually('the store works', async () => {
        await store.put('k', makeStoredTable(2), { ttlMs: 60_000 });
        return true;
      });
      expect((await store.take('k'))?.tableRows).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('lets a user-supplied ioredis client ride out the restart too', async () => {
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    client.on('error', () => {}); // the test's own; the store adds one as well
    const store = createRedisBodyStore({
      client,
      keyPrefix: uniquePrefix(),
      commandTimeoutMs: 1000,
      logger: quietLogger,
    });
    try {
      await store.put('kept', makeStoredTable(3), { ttlMs: 120_000 });
      await redis.kill('SIGKILL');
      const error = await store.take('kept').catch((e: unknown) => e);
      expect(S2SPError.isInstance(error) && error.code).toBe('unavailable');
      const putError = await store
        .put('other', makeStoredTable(1), { ttlMs: 1000 })
        .catch((e: unknown) => e);
      expect(S2SPError.isInstance(putError) && putError.code).toBe('unavailable');
      await redis.restart();
      await eventually('ioredis is ready again', () => client.status === 'ready');
      const kept = await readTaken(await store.take('kept', [2]));
      expect(kept?.rows).toEqual([makeStoredTable(3).rows[2]]);
    } finally {
      await store.close();
      client.disconnect();
    }
  });
});

describe('Redis frozen (SIGSTOP) mid-flow', () => {
  it('times out a redemption with 503 and the late command does not use the token up', async () => {
    await using replica = await startReplica({
      url: redis.url,
      keyPrefix: uniquePrefix(),
      commandTimeoutMs: 1000,
      logger: quietLogger,
    });
    const issued = S2SPResultSchema.parse(
      (await callTool(replica.http.mcpUrl, { abstract_domains: 'kind' })).structuredContent,
    );
    const resourceUrl = issued.resource_url as string;
    // Any redemption measures the Redis clock; an unknown token is enough.
    expect(
      (await redeem(atReplica(`${replica.http.url}/s2sp/data/${'A'.repeat(43)}`, replica))).status,
    ).toBe(404);

    await redis.kill('SIGSTOP');
    try {
      // The take is written to the open socket and waits in Redis's buffer; the store gives up.
      const frozen = await redeem(resourceUrl, { row_ids: [2] });
      expect(frozen.status).toBe(503);
      expect(ErrorBodySchema.parse(frozen.json).error.message).toContain(
        'Redis did not answer within 1000 ms',
      );
    } finally {
      await redis.kill('SIGCONT');
    }

    // Redis now runs the abandoned take, finds its deadline passed and leaves the entry alone.
    const after = await redeem(resourceUrl, { row_ids: [2] });
    expect(after.status).toBe(200);
    expect((after.json as { body: unknown[] }).body).toEqual([{ _row_id: 2, ...ROWS[2] }]);
  });
});
