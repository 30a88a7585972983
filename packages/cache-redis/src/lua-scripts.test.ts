import { type RedisTestServer, startRedis } from '@s2sp/test-utils';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUDGET_RELEASE,
  BUDGET_RESERVE,
  PUT_CHUNK,
  runScript,
  TAKE,
  TAKE_LATE,
} from './lua-scripts.js';
import { type RedisConnection, wrapClient } from './redis-connection.js';

let redis: RedisTestServer;
let client: ReturnType<typeof createClient>;
let connection: RedisConnection;
let n = 0;
const freshKey = () => `lua-test:{k${n++}-${Date.now()}}`;

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

// ARGV of PUT_CHUNK: ttl, flags, first page, columns, row count, size, rows per page, pages…
const chunk = (flags: string, start: number, pages: string[], rows = 0, perPage = 1) => [
  '60000',
  flags,
  String(start),
  flags.endsWith('1') ? '["a"]' : '',
  flags.endsWith('1') ? String(rows) : '',
  flags.endsWith('1') ? '99' : '',
  flags.endsWith('1') ? String(perPage) : '',
  ...pages,
];

describe('PUT_CHUNK and TAKE', () => {
  it('writes pages as hash fields with the TTL, and takes rows from them once', async () => {
    const key = freshKey();
    await runScript(connection, PUT_CHUNK, [key], chunk('10', 0, ['r0\nr1', 'r2\nr3']));
    // Not visible before the last chunk has written the metadata.
    expect(await runScript(connection, TAKE, [key], ['0', 'all'])).toBeNull();
    await runScript(connection, PUT_CHUNK, [key], chunk('01', 2, ['r4'], 5, 2));
    expect(await client.hGetAll(key)).toEqual({
      '0': 'r0\nr1',
      '1': 'r2\nr3',
      '2': 'r4',
      '#c': '["a"]',
      '#n': '5',
      '#b': '99',
      '#p': '2',
    });
    const ttl = await client.pTTL(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    const ids = ['3', '7', '0', '4', '-1', '1.5', 'x', '3'];
    expect(await runScript(connection, TAKE, [key], ['0', 'some', ...ids])).toEqual([
      '["a"]',
      '5',
      '99',
      '2',
      'r3',
      null,
      'r0',
      'r4',
      null,
      null,
      null,
      'r3',
    ]);
    expect(await client.exists(key)).toBe(0);
    expect(await runScript(connection, TAKE, [key], ['0', 'all'])).toBeNull();
  });

  it('returns every page in order across HMGET slices', async () => {
    const key = freshKey();
    const pages = Array.from({ length: 1234 }, (_, i) => `page-${i}`);
    await runScript(connection, PUT_CHUNK, [key], chunk('11', 0, pages, pages.length));
    const reply = (await runScript(connection, TAKE, [key], ['0', 'all'])) as string[];
    expect(reply.slice(4)).toEqual(pages);
  });

  it('reads only the pages of the requested rows', async () => {
    const key = freshKey();
    const pages = Array.from({ length: 1200 }, (_, p) => `${p * 2}\n${p * 2 + 1}`);
    await runScript(connection, PUT_CHUNK, [key], chunk('11', 0, pages, 2400, 2));
    const ids = Array.from({ length: 700 }, (_, i) => String((i * 7) % 2400));
    const reply = (await runScript(connection, TAKE, [key], ['0', 'some', ...ids])) as string[];
    expect(reply.slice(4)).toEqual(ids);
  });

  it('refuses to publish an entry with a missing chunk, and removes it', async () => {
    const key = freshKey();
    await runScript(connection, PUT_CHUNK, [key], chunk('10', 0, ['r0', 'r1']));
    // Pages 2-3 never arrived.
    const error = await runScript(connection, PUT_CHUNK, [key], chunk('01', 4, ['r4'], 5)).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toContain('S2SP_INCOMPLETE');
    expect(await client.exists(key)).toBe(0);
  });

  it('replaces an older entry under the same key', async () => {
    const key = freshKey();
    await runScript(connection, PUT_CHUNK, [key], chunk('11', 0, ['old0', 'old1'], 2));
    await runScript(connection, PUT_CHUNK, [key], chunk('11', 0, ['new0'], 1));
    expect(await client.hLen(key)).toBe(5);
  });

  it('stores an empty table as metadata only', async () => {
    const key = freshKey();
    await runScript(connection, PUT_CHUNK, [key], chunk('11', 0, [], 0));
    expect(await runScript(connection, TAKE, [key], ['0', 'all'])).toEqual([
      '["a"]',
      '0',
      '99',
      '1',
    ]);
  });

  it('does nothing when it runs after its deadline', async () => {
    const key = freshKey();
    await runScript(connection, PUT_CHUNK, [key], chunk('11', 0, ['r0'], 1));
    const [seconds] = (await client.sendCommand(['TIME'])) as [string, string];
    const past = String(Number(seconds) * 1000 - 1000);
    expect(await runScript(connection, TAKE, [key], [past, 'all'])).toBe(TAKE_LATE);
    expect(await client.hLen(key)).toBe(5);
    const future = String(Number(seconds) * 1000 + 60_000);
    expect(await runScript(connection, TAKE, [key], [future, 'all'])).toEqual([
      '["a"]',
      '1',
      '99',
      '1',
      'r0',
    ]);
  });

  it('loads a script again after SCRIPT FLUSH (NOSCRIPT → EVAL)', async () => {
    await client.sendCommand(['SCRIPT', 'FLUSH']);
    const key = freshKey();
    expect(await runScript(connection, PUT_CHUNK, [key], chunk('11', 0, ['r0'], 1))).toBe(1);
    expect(await client.sendCommand(['SCRIPT', 'EXISTS', PUT_CHUNK.sha])).toEqual([1]);
  });
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
