import { type RedisTestServer, startRedis } from '@s2sp/test-utils';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_RELEASE, BUDGET_RESERVE } from './byte-budget.js';
import { runScript } from './lua-script.js';
import { type RedisConnection, wrapClient } from './redis-connection.js';

let redis: RedisTestServer;
let client: ReturnType<typeof createClient>;
let connection: RedisConnection;
let n = 0;

beforeAll(async () => {
  redis = await startRedis();
  client = createClient({ url: redis.url });
  await client.connect();
  connection = wrapClient(client, 5000);
});

afterAll(async () => {
  await client?.close();
  await redis?.stop();
});

describe('BUDGET_RESERVE and BUDGET_RELEASE', () => {
  const keys = () => {
    const base = `budget-test-${n++}#budget`;
    return [`${base}{#}`, `${base}{#}:used`];
  };

  it('reserves until the budget is spent, and release gives room back once', async () => {
    const k = keys();
    const reserve = (member: string, size: number) =>
      runScript(connection, BUDGET_RESERVE, k, ['100', String(size), `${member}:${size}`, '60000']);
    expect(await reserve('a', 60)).toEqual([1, 60]);
    expect(await reserve('b', 50)).toEqual([0, 60]);
    expect(await reserve('c', 40)).toEqual([1, 100]);
    await runScript(connection, BUDGET_RELEASE, k, ['a:60', '60']);
    await runScript(connection, BUDGET_RELEASE, k, ['a:60', '60']); // idempotent
    expect(await client.get(k[1] as string)).toBe('40');
    expect(await reserve('b', 50)).toEqual([1, 90]);
  });

  it('drops the reservations of expired entries', async () => {
    const k = keys();
    await runScript(connection, BUDGET_RESERVE, k, ['100', '80', 'a:80', '30']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await runScript(connection, BUDGET_RESERVE, k, ['100', '70', 'b:70', '60000'])).toEqual([
      1, 70,
    ]);
    expect(await client.zRange(k[0] as string, 0, -1)).toEqual(['b:70']);
  });
});
