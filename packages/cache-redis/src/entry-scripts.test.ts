import { type RedisTestServer, startRedis } from '@s2sp/test-utils';
import { createClient, RESP_TYPES } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXPIRE_BLOCKS,
  PUT_BLOCKS,
  TAKE,
  TAKE_CLAIMED,
  TAKE_EXPIRES_BLOCKS,
  TAKE_INLINE,
  TAKE_LATE,
  TAKE_TOO_MANY,
} from './entry-scripts.js';
import { runScript } from './lua-script.js';
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

/** Rows joined by commas, cut every `size` bytes, and their offsets, as the store writes them. */
function entry(rows: string[], size: number) {
  const joined = Buffer.from(rows.join(','));
  const blocks: Buffer[] = [];
  for (let at = 0; at < joined.length; at += size) blocks.push(joined.subarray(at, at + size));
  const offsets = Buffer.alloc(rows.length * 4);
  let end = -1;
  rows.forEach((row, i) => {
    end += Buffer.byteLength(row) + 1;
    offsets.writeUInt32LE(end, i * 4);
  });
  return { joined, blocks, offsets, size };
}

type Entry = ReturnType<typeof entry>;

// ARGV of PUT_BLOCKS: ttl, flags, first block, [last: columns, rows, size, blocks, joined bytes,
// block size, offsets], blocks…
function put(key: string, e: Entry, flags = '11', start = 0, blocks = e.blocks, rows = -1) {
  const last = flags.endsWith('1');
  return runScript(
    connection,
    PUT_BLOCKS,
    [key],
    [
      '60000',
      flags,
      String(start),
      ...(last
        ? [
            '["a"]',
            String(rows >= 0 ? rows : e.offsets.length / 4),
            '99',
            String(e.blocks.length),
            String(e.joined.length),
            String(e.size),
            e.offsets,
          ]
        : []),
      ...blocks,
    ],
  );
}

const take = (key: string, args: string[], hold = '60000') =>
  runScript(
    connection,
    TAKE,
    [key],
    [args[0] as string, args[1] as string, hold, ...args.slice(2)],
    {
      buffers: true,
    },
  ) as Promise<unknown[] | number | null>;

/**
 * After a take of rows from an entry of more than TAKE_EXPIRES_BLOCKS blocks: the metadata is gone
 * at once, and nothing else was touched (no expiry delays the answer); EXPIRE_BLOCKS (what the
 * store sends next) makes the offsets and every block go within milliseconds.
 */
async function expectGoneAfterExpiry(key: string, blocks: number): Promise<void> {
  expect(await client.exists(key)).toBe(0);
  const rest = [`${key}:o`, ...Array.from({ length: blocks }, (_, i) => `${key}:${i}`)];
  for (const k of rest) expect(await client.pTTL(k)).toBeGreaterThan(50_000);
  await runScript(connection, EXPIRE_BLOCKS, [key], [String(blocks)]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await client.keys(`${key}*`)).toEqual([]);
}

const texts = (values: unknown[]) => values.map((v) => (Buffer.isBuffer(v) ? v.toString() : v));

const rows = [
  '{"_row_id":0,"t":"ß"}',
  '{"_row_id":1,"t":"x"}',
  '{"_row_id":2,"t":"😀😀"}',
  '{"_row_id":3}',
];

describe('PUT_BLOCKS and TAKE', () => {
  it('writes blocks, offsets and metadata with the TTL, and takes rows from them once', async () => {
    const key = freshKey();
    // Blocks of 4 bytes: rows and characters are cut across 20 blocks.
    const e = entry(rows, 4);
    expect(e.blocks.length).toBeGreaterThan(16);
    await put(key, e, '10', 0, e.blocks.slice(0, 5));
    // Not visible before the last chunk has written the metadata.
    expect(await take(key, ['0', 'all'])).toBeNull();
    await put(key, e, '01', 5, e.blocks.slice(5));
    expect(await client.hGetAll(key)).toEqual({
      '#c': '["a"]',
      '#n': '4',
      '#b': '99',
      '#k': String(e.blocks.length),
      '#j': String(e.joined.length),
      '#s': '4',
    });
    for (const k of [key, `${key}:o`, `${key}:0`, `${key}:${e.blocks.length - 1}`]) {
      const ttl = await client.pTTL(k);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    // More ids than the table has rows: refused before any per-id work, the entry untouched.
    const tooMany = ['3', '2', '0', '4', '-1', '1.5', 'x', '3', '1'];
    expect(await take(key, ['0', 'some', ...tooMany])).toEqual([TAKE_TOO_MANY, Buffer.from('4')]);
    expect(await client.exists(key)).toBe(1);
    const ids = ['3', '4', 'x', '3'];
    const reply = (await take(key, ['0', 'some', ...ids])) as unknown[];
    expect(reply.slice(0, 1)).toEqual([TAKE_INLINE]);
    expect(texts(reply.slice(7))).toEqual([rows[3], null, null, rows[3]]);
    await expectGoneAfterExpiry(key, e.blocks.length);
    expect(await take(key, ['0', 'all'])).toBeNull();
  });

  it('lets an entry of a few blocks go in the take of its rows itself, and leaves a larger one to EXPIRE_BLOCKS', async () => {
    const many = Array.from({ length: 40 }, (_, i) => JSON.stringify({ _row_id: i }));
    for (const blocks of [TAKE_EXPIRES_BLOCKS, TAKE_EXPIRES_BLOCKS + 1]) {
      const key = freshKey();
      const e = entry(many, Math.ceil(Buffer.byteLength(many.join(',')) / blocks));
      expect(e.blocks).toHaveLength(blocks);
      await put(key, e);
      const reply = (await take(key, ['0', 'some', '39', '0'])) as unknown[];
      expect(texts(reply.slice(7))).toEqual([many[39], many[0]]);
      if (blocks > TAKE_EXPIRES_BLOCKS) {
        await expectGoneAfterExpiry(key, blocks);
        continue;
      }
      // Metadata and offsets gone with the take, every block expiring within a millisecond.
      expect(await client.exists([key, `${key}:o`])).toBe(0);
      for (let i = 0; i < blocks; i++)
        expect(await client.pTTL(`${key}:${i}`)).toBeLessThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await client.keys(`${key}*`)).toEqual([]);
      expect(await take(key, ['0', 'some', '0'])).toBeNull();
    }
  });

  it('claims a whole table, however small: removes its metadata, keeps its blocks for the reader for the hold time', async () => {
    const key = freshKey();
    const e = entry(rows, 10);
    await put(key, e);
    const reply = (await take(key, ['0', 'all'], '5000')) as unknown[];
    expect(reply).toHaveLength(7);
    expect(reply[0]).toBe(TAKE_CLAIMED);
    expect(await client.exists(key)).toBe(0);
    expect(await take(key, ['0', 'all'])).toBeNull();
    const ttl = await client.pTTL(`${key}:0`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5000);
    const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    const blocks = await Promise.all(e.blocks.map((_, i) => binary.get(`${key}:${i}`)));
    expect(Buffer.concat(blocks as Buffer[])).toEqual(e.joined);
  });

  it('lets a whole table its caller read before the claim expire at once, and holds a larger one', async () => {
    const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    for (const [read, blocksLeft] of [
      ['3', 0],
      ['2', 3],
    ] as const) {
      const key = freshKey();
      const e = entry(rows, 30); // 3 blocks
      expect(e.blocks).toHaveLength(3);
      await put(key, e);
      // What the caller sends in the same write, just before the claim.
      const before = (await binary.mGet([
        `${key}:o`,
        `${key}:0`,
        `${key}:1`,
        `${key}:2`,
      ])) as Buffer[];
      const reply = (await take(key, ['0', 'all'], `5000 ${read}`)) as unknown[];
      expect(reply[0]).toBe(TAKE_CLAIMED);
      expect(Buffer.concat(before.slice(1))).toEqual(e.joined);
      expect(await take(key, ['0', 'all'], `5000 ${read}`)).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const left = await client.keys(`${key}*`);
      expect(left.filter((k) => /:\d+$/.test(k))).toHaveLength(blocksLeft);
      expect(left.includes(`${key}:o`)).toBe(blocksLeft > 0);
      for (const k of left) expect(await client.pTTL(k)).toBeGreaterThan(4000);
    }
  });

  it('reads many rows across many blocks', async () => {
    const key = freshKey();
    const many = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ _row_id: i, v: 'é'.repeat(i % 13) }),
    );
    const e = entry(many, 1000);
    await put(key, e);
    const ids = Array.from({ length: 700 }, (_, i) => (i * 7) % 3000);
    const reply = (await take(key, ['0', 'some', ...ids.map(String)])) as unknown[];
    expect(texts(reply.slice(7))).toEqual(ids.map((i) => many[i]));
  });

  it('reads the right rows when their offsets lie further apart than one offsets read', async () => {
    const key = freshKey();
    const many = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ _row_id: i }));
    await put(key, entry(many, 1 << 16));
    // 16 384 rows of offsets fill one read: ids on both sides of that edge, then back down.
    const ids = [0, 1, 16_383, 16_384, 16_385, 19_999, 5, 20_000, 16_384];
    const reply = (await take(key, ['0', 'some', ...ids.map(String)])) as unknown[];
    expect(texts(reply.slice(7))).toEqual(ids.map((i) => many[i] ?? null));
  });

  it('refuses to publish an entry with a missing chunk, and removes it', async () => {
    const key = freshKey();
    const e = entry(rows, 7);
    await put(key, e, '10', 0, e.blocks.slice(0, 2));
    // Blocks 2-4 never arrived.
    const error = await put(key, e, '01', 5, e.blocks.slice(5)).catch((x: unknown) => x);
    expect((error as Error).message).toContain('S2SP_INCOMPLETE');
    expect(await client.keys(`${key}*`)).toEqual([]);
  });

  it('replaces an older entry under the same key, blocks and all', async () => {
    const key = freshKey();
    await put(key, entry(rows, 4));
    const e = entry(rows.slice(0, 1), 100);
    await put(key, e);
    expect((await client.keys(`${key}*`)).sort()).toEqual([key, `${key}:0`, `${key}:o`]);
    const reply = (await take(key, ['0', 'some', '0'])) as unknown[];
    expect(texts(reply.slice(7))).toEqual([rows[0]]);
  });

  it('stores an empty table as metadata only', async () => {
    const key = freshKey();
    await put(key, entry([], 10), '11', 0, [], 0);
    expect(texts((await take(key, ['0', 'all'])) as unknown[])).toEqual([
      TAKE_CLAIMED,
      '["a"]',
      '0',
      '99',
      '0',
      '0',
      '10',
    ]);
    expect(await client.get(`${key}:o`)).toBe('');
  });

  it('does nothing when it runs after its deadline', async () => {
    const key = freshKey();
    await put(key, entry(rows, 100));
    const [seconds] = (await client.sendCommand(['TIME'])) as [string, string];
    const past = String(Number(seconds) * 1000 - 1000);
    expect(await take(key, [past, 'all'])).toBe(TAKE_LATE);
    expect(await take(key, [past, 'some', '0'])).toBe(TAKE_LATE);
    expect(await client.exists(key)).toBe(1);
    const future = String(Number(seconds) * 1000 + 60_000);
    expect(texts(((await take(key, [future, 'some', '1'])) as unknown[]).slice(7))).toEqual([
      rows[1],
    ]);
  });

  it('loads a script again after SCRIPT FLUSH (NOSCRIPT → EVAL)', async () => {
    await client.sendCommand(['SCRIPT', 'FLUSH']);
    expect(await put(freshKey(), entry(rows, 100))).toBe(1);
    expect(await client.sendCommand(['SCRIPT', 'EXISTS', PUT_BLOCKS.sha])).toEqual([1]);
  });
});
