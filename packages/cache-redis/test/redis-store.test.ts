import { generateToken, S2SPError, tokenStorageKey } from '@s2sp/core';
import { chunksOf, encodeRows, type StoredTable, type TakenRows } from '@s2sp/core/store';
import { makeStoredTable, readTaken } from '@s2sp/core/testing';
import { type RedisTestServer, startRedis, startRedisCluster } from '@s2sp/test-utils';
import { Redis } from 'ioredis';
import { createClient, createCluster, RESP_TYPES } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisBodyStore, type RedisBodyStore } from '../src/index.js';
import { eventually, quietLogger, uniquePrefix } from './helpers.js';

let redis: RedisTestServer;
let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
let admin: ReturnType<typeof createClient>;
let clusterClient: ReturnType<typeof createCluster>;

beforeAll(async () => {
  [redis, cluster] = await Promise.all([startRedis(), startRedisCluster()]);
  admin = createClient({ url: redis.url });
  await admin.connect();
  clusterClient = createCluster({ rootNodes: cluster.urls.map((url) => ({ url })) });
  await clusterClient.connect();
});

afterAll(async () => {
  await admin?.close();
  await clusterClient?.close();
  await Promise.all([redis?.stop(), cluster?.stop()]);
});

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 }))
    keys.push(...batch);
  return keys.sort();
}

/**
 * A table of several MiB with rows of uneven width and multi-byte characters, so that block
 * boundaries (every 1 MiB) fall inside rows and inside characters.
 */
function wideTable(rowCount: number): StoredTable {
  const rows: string[] = [];
  for (let i = 0; i < rowCount; i++)
    rows.push(
      JSON.stringify({
        _row_id: i,
        text: `${i}:${(i % 7 === 0 ? 'ß😀x' : 'x').repeat(i % 7 === 0 ? 900 : 40)}`,
      }),
    );
  return { columns: ['text'], rows };
}

const utf8Length = (rows: readonly string[]) => Buffer.byteLength(rows.join(','));

describe('storage layout', () => {
  it('keeps metadata, offsets and blocks under <prefix>{<sha256>}, with the TTL and no token anywhere', async () => {
    const prefix = uniquePrefix();
    const store = createRedisBodyStore({ url: redis.url, keyPrefix: prefix, logger: quietLogger });
    try {
      const token = generateToken();
      const key = await tokenStorageKey(token);
      const table = makeStoredTable(3);
      await store.put(key, table, { ttlMs: 30_000 });

      const main = `${prefix}{${key}}`;
      expect(await keysUnder(prefix)).toEqual([main, `${main}:0`, `${main}:o`]);
      const joined = Buffer.from(table.rows.join(','));
      expect(await admin.hGetAll(main)).toEqual({
        '#c': '["name","payload"]',
        '#n': '3',
        '#b': String(table.rows.join('').length + 'name'.length + 'payload'.length),
        '#k': '1',
        '#j': String(joined.byteLength),
        '#s': String(1024 * 1024),
      });
      const binary = admin.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
      expect(await binary.get(`${main}:0`)).toEqual(joined);
      // Where each row ends in the joined bytes, 4 bytes little endian per row.
      const offsets = (await binary.get(`${main}:o`)) as Buffer;
      const ends = [0, 1, 2].map((i) => offsets.readUInt32LE(i * 4));
      expect(ends).toEqual(
        [1, 2, 3].map((n) => Buffer.byteLength(table.rows.slice(0, n).join(','))),
      );
      for (const k of await keysUnder(prefix)) {
        expect(k).not.toContain(token);
        const ttl = await admin.pTTL(k);
        expect(ttl).toBeGreaterThan(25_000);
        expect(ttl).toBeLessThanOrEqual(30_000);
      }
      expect(joined.toString()).not.toContain(token);

      await store.take(key, [1]);
      // The metadata goes with the take; offsets and blocks expire a millisecond later.
      expect(await admin.exists(main)).toBe(0);
      for (const k of [`${main}:0`, `${main}:o`])
        expect(await admin.pTTL(k)).toBeLessThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await keysUnder(prefix)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('puts every key of an entry in one cluster slot, on one node', async () => {
    const store = createRedisBodyStore({ client: clusterClient, logger: quietLogger });
    try {
      const key = await tokenStorageKey(generateToken());
      await store.put(key, wideTable(50), { ttlMs: 30_000 });
      const slot = await clusterClient.sendCommand(key, true, [
        'CLUSTER',
        'KEYSLOT',
        `s2sp:{${key}}`,
      ]);
      const tagSlot = await clusterClient.sendCommand(key, true, ['CLUSTER', 'KEYSLOT', key]);
      expect(slot).toBe(tagSlot);
      expect((await store.take(key))?.tableRows).toBe(50);
    } finally {
      await store.close();
    }
  });
});

describe.each([
  [
    'one node (url)',
    () =>
      createRedisBodyStore({
        url: redis.url,
        keyPrefix: uniquePrefix(),
        logger: quietLogger,
        nearCacheBytes: 0,
      }),
  ],
  [
    'a 3-master cluster',
    () =>
      createRedisBodyStore({
        client: clusterClient,
        keyPrefix: uniquePrefix(),
        logger: quietLogger,
        nearCacheBytes: 0,
      }),
  ],
])('large tables on %s', (_name, makeStore) => {
  it('writes a table in many chunks and returns all rows in table order', async () => {
    const store = makeStore();
    try {
      const table = wideTable(12_345);
      const key = await tokenStorageKey(generateToken());
      await store.put(key, table, { ttlMs: 60_000 });
      expect(await store.stats()).toEqual({
        entries: 1,
        rows: 12_345,
        bytes: table.rows.join('').length + 'text'.length,
      });
      expect(utf8Length(table.rows)).toBeGreaterThan(3 * 1024 * 1024);
      const streamed = await store.take(key);
      // A large table is handed over as a stream of 1 MiB blocks, with its length and row ends.
      expect(streamed?.byteLength).toBe(utf8Length(table.rows));
      expect(streamed?.ends).toHaveLength(12_345);
      const blocks: Uint8Array[] = [];
      for await (const block of streamed?.chunks ?? []) blocks.push(block);
      expect(blocks.length).toBe(Math.ceil(utf8Length(table.rows) / (1024 * 1024)));
      const taken = await readTaken({ ...(streamed as TakenRows), chunks: chunksOf(blocks) });
      expect(taken?.tableRows).toBe(12_345);
      expect(taken?.rows).toEqual(table.rows);
      expect(await store.take(key)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('returns a handful of rows from a large table, in table order, listing the missing', async () => {
    const store = makeStore();
    try {
      const table = wideTable(12_345);
      const key = await tokenStorageKey(generateToken());
      await store.put(key, table, { ttlMs: 60_000 });
      const ids = [0, 7, 8, 5000, 12_344, 99_999];
      const taken = await readTaken(await store.take(key, ids));
      expect(taken?.rows).toEqual(ids.slice(0, 5).map((id) => table.rows[id]));
      expect(taken?.missing).toEqual([99_999]);
      expect(await store.take(key, [0])).toBeUndefined();
      expect((await store.stats()).entries).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('reads every row by id, also those cut across blocks and characters', async () => {
    const store = makeStore();
    try {
      const table = wideTable(12_345);
      const key = await tokenStorageKey(generateToken());
      await store.put(key, table, { ttlMs: 60_000 });
      const ids = table.rows.map((_, i) => i);
      const taken = await readTaken(await store.take(key, ids));
      expect(taken?.rows).toEqual(table.rows);
      expect(taken?.missing).toEqual([]);
      // Up to 1000 ids the script reads them itself, across block boundaries too.
      const again = await tokenStorageKey(generateToken());
      await store.put(again, table, { ttlMs: 60_000 });
      const some = ids.filter((id) => id % 13 === 5);
      expect(some.length).toBeLessThanOrEqual(1000);
      const read = await readTaken(await store.take(again, some));
      expect(read?.rows).toEqual(some.map((id) => table.rows[id]));
    } finally {
      await store.close();
    }
  });

  it('stores a table that carries its encoding (StoredTable.encode) from that encoding, once', async () => {
    const store = makeStore();
    try {
      const table = wideTable(12_345);
      // The encoding as a builder that holds the rows' bytes hands it over (the server's
      // serializeTable does so for rows given as bytes): built apart from the strings.
      const encoder = new TextEncoder();
      const parts = table.rows.map((row) => encoder.encode(row));
      let encoded = 0;
      const withEncoding: StoredTable = {
        ...table,
        encode: () => {
          encoded++;
          return encodeRows(parts);
        },
      };
      const key = await tokenStorageKey(generateToken());
      await store.put(key, withEncoding, { ttlMs: 60_000 });
      expect(encoded).toBe(1);
      const some = [0, 7, 8, 5000, 12_344];
      const again = await tokenStorageKey(generateToken());
      await store.put(again, withEncoding, { ttlMs: 60_000 });
      expect((await readTaken(await store.take(key)))?.rows).toEqual(table.rows);
      expect((await readTaken(await store.take(again, some)))?.rows).toEqual(
        some.map((id) => table.rows[id]),
      );
    } finally {
      await store.close();
    }
  });

  it.each([
    ['within the read-ahead', 5000, 20], // ~4.8 MB: 5 blocks
    ['past the read-ahead', 12_000, 4], // ~11.5 MB: 12 blocks, 4 read after the claim
  ])(
    'gives a large table (%s) to exactly one of many concurrent takes',
    async (_, rowCount, takers) => {
      const store = makeStore();
      try {
        const table = wideTable(rowCount);
        const key = await tokenStorageKey(generateToken());
        await store.put(key, table, { ttlMs: 60_000 });
        const results = await Promise.all(
          Array.from({ length: takers }, async () => readTaken(await store.take(key))),
        );
        const winners = results.filter((r) => r !== undefined);
        expect(winners).toHaveLength(1);
        expect(winners[0]?.rows).toEqual(table.rows);
      } finally {
        await store.close();
      }
    },
  );
});

/** How many times Redis ran each command since the last `CONFIG RESETSTAT`. */
async function commandCalls(): Promise<Record<string, number>> {
  const info = await admin.info('commandstats');
  return Object.fromEntries(
    [...info.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].map((m) => [m[1], Number(m[2])]),
  );
}

/**
 * Runs `test` on a store with a prefix of its own, then expects every key under it gone. The
 * store keeps no near copies: its takes read Redis, which these tests are about.
 */
async function leavesNoKey(test: (store: RedisBodyStore, prefix: string) => Promise<void>) {
  const prefix = uniquePrefix();
  const store = createRedisBodyStore({
    url: redis.url,
    keyPrefix: prefix,
    logger: quietLogger,
    nearCacheBytes: 0,
  });
  try {
    await test(store, prefix);
    await eventually('the blocks are removed', async () => (await keysUnder(prefix)).length === 0);
  } finally {
    await store.close();
  }
}

describe('a take of rows', () => {
  it('gives its rows and lets a small table go in one script, with no command after it', () =>
    leavesNoKey(async (store, prefix) => {
      const key = await tokenStorageKey(generateToken());
      const table = wideTable(3000); // ~2.9 MB: 3 blocks
      await store.put(key, table, { ttlMs: 60_000 });
      await admin.configResetStat();
      const taken = await store.take(key, [0, 2999]);
      expect((await readTaken(taken))?.rows).toEqual([table.rows[0], table.rows[2999]]);
      await new Promise((resolve) => setTimeout(resolve, 50)); // nothing is sent after this
      expect((await commandCalls()).evalsha).toBe(1);
      expect(await keysUnder(prefix)).toEqual([]);
      expect(await store.take(key, [0])).toBeUndefined();
    }));
});

describe('a claimed large table', () => {
  it('is read in the round trip of its claim: one MGET of offsets and blocks, no GET', () =>
    leavesNoKey(async (store) => {
      const key = await tokenStorageKey(generateToken());
      const table = wideTable(5000); // ~4.8 MB: 5 blocks, within the read-ahead
      await store.put(key, table, { ttlMs: 60_000 });
      await admin.configResetStat();
      const taken = await store.take(key);
      const calls = await commandCalls();
      expect(calls.mget).toBe(1);
      expect(calls.get).toBeUndefined();
      expect((await readTaken(taken))?.rows).toEqual(table.rows);
      expect((await commandCalls()).get).toBeUndefined();
    }));

  it('is claimed and let expire by one script, with no command after it, also after NOSCRIPT', () =>
    leavesNoKey(async (store) => {
      const table = wideTable(5000);
      for (const flush of [false, true]) {
        const key = await tokenStorageKey(generateToken());
        await store.put(key, table, { ttlMs: 60_000 });
        if (flush) await admin.scriptFlush();
        await admin.configResetStat();
        expect((await readTaken(await store.take(key)))?.rows).toEqual(table.rows);
        await new Promise((resolve) => setTimeout(resolve, 50)); // nothing is sent after this
        const calls = await commandCalls();
        expect([calls.mget, (calls.evalsha ?? 0) + (calls.eval ?? 0)]).toEqual([1, flush ? 2 : 1]);
        expect(calls.eval ?? 0).toBe(flush ? 1 : 0);
        expect(await store.take(key)).toBeUndefined();
      }
    }));

  it('is let expire through a cluster client too (reads, claim, then the expiry)', async () => {
    const prefix = uniquePrefix();
    const store = createRedisBodyStore({
      client: clusterClient,
      keyPrefix: prefix,
      logger: quietLogger,
      nearCacheBytes: 0,
    });
    try {
      const key = await tokenStorageKey(generateToken());
      const table = wideTable(5000); // 5 blocks
      await store.put(key, table, { ttlMs: 60_000 });
      const entry = `${prefix}{${key}}`;
      const keys = [entry, `${entry}:o`, ...Array.from({ length: 5 }, (_, i) => `${entry}:${i}`)];
      expect(await clusterClient.exists(keys)).toBe(keys.length);
      expect((await readTaken(await store.take(key)))?.rows).toEqual(table.rows);
      await eventually(
        'the blocks are removed',
        async () => (await clusterClient.exists(keys)) === 0,
      );
      expect(await store.take(key)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it.each([5000, 12_000])('leaves no key behind once read (%i rows)', (rowCount) =>
    leavesNoKey(async (store, prefix) => {
      const key = await tokenStorageKey(generateToken());
      await store.put(key, wideTable(rowCount), { ttlMs: 60_000 });
      expect((await keysUnder(prefix)).length).toBeGreaterThan(3);
      expect((await readTaken(await store.take(key)))?.tableRows).toBe(rowCount);
    }),
  );

  it('leaves no key behind when its reader never reads it', () =>
    leavesNoKey(async (store) => {
      const key = await tokenStorageKey(generateToken());
      await store.put(key, wideTable(5000), { ttlMs: 60_000 });
      expect((await store.take(key))?.tableRows).toBe(5000);
    }));
});

describe('replicas sharing one Redis', () => {
  it('give each entry to exactly one of many concurrent takes across stores', async () => {
    const prefix = uniquePrefix();
    const io = new Redis(redis.url);
    const stores = [
      createRedisBodyStore({ url: redis.url, keyPrefix: prefix, logger: quietLogger }),
      createRedisBodyStore({ url: redis.url, keyPrefix: prefix, logger: quietLogger }),
      createRedisBodyStore({ client: io, keyPrefix: prefix, logger: quietLogger }),
    ];
    try {
      const key = await tokenStorageKey(generateToken());
      await stores[0]?.put(key, makeStoredTable(10), { ttlMs: 60_000 });
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (stores[i % 3] as RedisBodyStore).take(key, [i % 10])),
      );
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      io.disconnect();
    }
  });

  it('share one maxBytes budget, given back when entries are taken', async () => {
    const prefix = uniquePrefix();
    const [a, b] = [1, 2].map(() =>
      createRedisBodyStore({
        url: redis.url,
        keyPrefix: prefix,
        maxBytes: 3500,
        logger: quietLogger,
      }),
    ) as [RedisBodyStore, RedisBodyStore];
    try {
      const table = makeStoredTable(5); // about 400 characters, charged about 1 450 with overhead
      await a.put('one', table, { ttlMs: 60_000 });
      await b.put('two', table, { ttlMs: 60_000 });
      const error = await a.put('three', table, { ttlMs: 60_000 }).catch((e: unknown) => e);
      expect(S2SPError.isInstance(error) && error.code).toBe('store_full');
      expect((error as Error).message).toMatch(/The S2SP cache is full \(\d+ of 3500 bytes in use/);
      expect((await b.take('one'))?.tableRows).toBe(5);
      await a.put('three', table, { ttlMs: 60_000 });
      const tooBig = await a
        .put('big', makeStoredTable(50), { ttlMs: 60_000 })
        .catch((e: unknown) => e);
      expect((tooBig as Error).message).toContain('larger than the whole cache');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('charge empty entries their overhead, so they cannot fill the budget for free', async () => {
    const store = createRedisBodyStore({
      url: redis.url,
      keyPrefix: uniquePrefix(),
      maxBytes: 10 * 1024,
      logger: quietLogger,
    });
    try {
      let stored = 0;
      let refused: unknown;
      for (let i = 0; i < 100 && refused === undefined; i++) {
        await store.put(`e${i}`, { columns: [], rows: [] }, { ttlMs: 60_000 }).then(
          () => stored++,
          (e: unknown) => {
            refused = e;
          },
        );
      }
      expect(stored).toBe(10);
      expect(S2SPError.isInstance(refused) && refused.code).toBe('store_full');
      expect((await store.take('e0'))?.tableRows).toBe(0);
      await store.put('again', { columns: [], rows: [] }, { ttlMs: 60_000 });
    } finally {
      await store.close();
    }
  });
});

describe('the near cache: a replica redeeming a table it wrote', () => {
  /** Commands that read an entry's rows or blocks, since the last `CONFIG RESETSTAT`. */
  const rowReads = async () => {
    const calls = await commandCalls();
    return (calls.getrange ?? 0) + (calls.get ?? 0) + (calls.mget ?? 0);
  };
  const newKey = () => tokenStorageKey(generateToken());
  const storeOn = (
    prefix: string,
    more: { nearCacheBytes?: number; commandTimeoutMs?: number } = {},
  ) => createRedisBodyStore({ url: redis.url, keyPrefix: prefix, logger: quietLogger, ...more });

  it('claims the entry in Redis without reading its rows, which come from this process', async () => {
    const prefix = uniquePrefix();
    const store = storeOn(prefix);
    try {
      const table = wideTable(3000); // ~2.9 MB: 3 blocks
      const [some, all] = [await newKey(), await newKey()];
      for (const key of [some, all]) await store.put(key, table, { ttlMs: 60_000 });
      await admin.configResetStat();
      const picked = await readTaken(await store.take(some, [0, 7, 2999, 3000]));
      expect(picked?.rows).toEqual([table.rows[0], table.rows[7], table.rows[2999]]);
      expect(picked?.missing).toEqual([3000]);
      expect(picked?.tableRows).toBe(3000);
      expect((await readTaken(await store.take(all)))?.rows).toEqual(table.rows);
      expect(await rowReads()).toBe(0);
      expect((await commandCalls()).evalsha).toBe(2);
      // Single use as before, and nothing left in Redis.
      expect(await store.take(some, [0])).toBeUndefined();
      expect(await store.take(all)).toBeUndefined();
      await eventually('every key is gone', async () => (await keysUnder(prefix)).length === 0);
    } finally {
      await store.close();
    }
  });

  it('gives an entry taken at another replica to nobody here, and one take of many at its own', async () => {
    const prefix = uniquePrefix();
    const [minter, other] = [storeOn(prefix), storeOn(prefix)];
    try {
      const table = makeStoredTable(50);
      const first = await newKey();
      await minter.put(first, table, { ttlMs: 60_000 });
      expect((await readTaken(await other.take(first, [3])))?.rows).toEqual([table.rows[3]]);
      expect(await minter.take(first, [3])).toBeUndefined();
      expect(await minter.take(first)).toBeUndefined();

      const second = await newKey();
      await minter.put(second, table, { ttlMs: 60_000 });
      const takes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : minter).take(second, [1])),
      );
      expect(takes.filter((taken) => taken !== undefined)).toHaveLength(1);
    } finally {
      await Promise.all([minter.close(), other.close()]);
    }
  });

  it('keeps the newest tables within nearCacheBytes, and reads the rest from Redis', async () => {
    const prefix = uniquePrefix();
    const store = storeOn(prefix, { nearCacheBytes: 4 * 1024 * 1024 });
    try {
      const table = wideTable(3000); // ~2.9 MB: one fits, two do not
      const [older, newer, large] = [await newKey(), await newKey(), await newKey()];
      await store.put(older, table, { ttlMs: 60_000 });
      await store.put(newer, table, { ttlMs: 60_000 });
      await store.put(large, wideTable(5000), { ttlMs: 60_000 }); // ~4.8 MB: never kept
      await admin.configResetStat();
      expect((await readTaken(await store.take(newer, [1])))?.rows).toEqual([table.rows[1]]);
      expect(await rowReads()).toBe(0);
      expect((await readTaken(await store.take(older, [1])))?.rows).toEqual([table.rows[1]]);
      expect(await rowReads()).toBeGreaterThan(0);
      await admin.configResetStat();
      expect((await readTaken(await store.take(large)))?.tableRows).toBe(5000);
      expect(await rowReads()).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it('keeps its copy through a take Redis did not answer in time, and refuses too many ids untouched', async () => {
    const prefix = uniquePrefix();
    const store = storeOn(prefix, { commandTimeoutMs: 200 });
    try {
      const table = makeStoredTable(20);
      const key = await newKey();
      await store.put(key, table, { ttlMs: 60_000 });
      const tooMany = Array.from({ length: 21 }, (_, i) => i);
      const refused = await store.take(key, tooMany).catch((error: unknown) => error);
      expect(S2SPError.codeOf(refused)).toBe('invalid_request');
      // Redis holds every client for 600 ms: the take gives up, and its late script changes nothing.
      const pauser = createClient({ url: redis.url });
      await pauser.connect();
      await pauser.sendCommand(['CLIENT', 'PAUSE', '600', 'ALL']);
      await pauser.close();
      const late = await store.take(key, [2]).catch((error: unknown) => error);
      expect(S2SPError.codeOf(late)).toBe('unavailable');
      await new Promise((resolve) => setTimeout(resolve, 700));
      await admin.configResetStat();
      expect((await readTaken(await store.take(key, [2])))?.rows).toEqual([table.rows[2]]);
      expect(await rowReads()).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('serves no copy past its TTL, and leaves a repeatable take to Redis', async () => {
    const prefix = uniquePrefix();
    const store = storeOn(prefix);
    try {
      const table = makeStoredTable(20);
      const [short, repeated] = [await newKey(), await newKey()];
      await store.put(short, table, { ttlMs: 150 });
      await store.put(repeated, table, { ttlMs: 60_000 });
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await store.take(short)).toBeUndefined();
      const retry = { retry: { key: 'retry-1', graceMs: 5_000 } };
      await admin.configResetStat();
      expect((await readTaken(await store.take(repeated, [4], retry)))?.rows).toEqual([
        table.rows[4],
      ]);
      expect((await readTaken(await store.take(repeated, [4], retry)))?.rows).toEqual([
        table.rows[4],
      ]);
      expect(await rowReads()).toBeGreaterThan(0);
      expect(await store.take(repeated, [4])).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe('stats', () => {
  it('counts only complete entries of its own prefix', async () => {
    const prefix = uniquePrefix();
    const store = createRedisBodyStore({ url: redis.url, keyPrefix: prefix, logger: quietLogger });
    try {
      await store.put('done', makeStoredTable(2), { ttlMs: 60_000 });
      // A half-written entry (no metadata yet), another prefix's entry and an unrelated key.
      await admin.hSet(`${prefix}{halfway}`, { '0': '{"_row_id":0}' });
      await admin.hSet(`other-${prefix}{x}`, { '#n': '5', '#b': '5' });
      await admin.set(`${prefix}plain`, 'x');
      const stats = await store.stats();
      expect(stats.entries).toBe(1);
      expect(stats.rows).toBe(2);
      expect(await store.take('halfway')).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe('clients supplied by the caller', () => {
  it('are used as they are and never closed by the store', async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    const io = new Redis(redis.url);
    try {
      for (const c of [client, io]) {
        const store = createRedisBodyStore({
          client: c,
          keyPrefix: uniquePrefix(),
          logger: quietLogger,
        });
        await store.put('k', makeStoredTable(1), { ttlMs: 60_000 });
        await store.close();
      }
      expect(await client.ping()).toBe('PONG');
      expect(await io.ping()).toBe('PONG');
    } finally {
      await client.close();
      io.disconnect();
    }
  });

  it('a node-redis client that was never connected makes operations fail with unavailable', async () => {
    const client = createClient({ url: redis.url });
    const store = createRedisBodyStore({ client, logger: quietLogger });
    try {
      const error = await store.take('k').catch((e: unknown) => e);
      expect(S2SPError.isInstance(error) && error.code).toBe('unavailable');
    } finally {
      await store.close();
    }
  });
});

describe('a bug in the calling code', () => {
  it('fails with internal, not unavailable, and leaves the entry for a correct take', async () => {
    const store = createRedisBodyStore({
      url: redis.url,
      keyPrefix: uniquePrefix(),
      nearCacheBytes: 0,
      logger: quietLogger,
    });
    try {
      await store.put('k', makeStoredTable(3), { ttlMs: 60_000 });
      // Row ids that are not an array: the type system forbids it, JavaScript callers can do it.
      const error = await store.take('k', '12' as never).catch((e: unknown) => e);
      expect(S2SPError.isInstance(error) && error.code).toBe('internal');
      expect((error as S2SPError).cause).toBeInstanceOf(TypeError);
      expect((await readTaken(await store.take('k', [2])))?.rows).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});

describe('takes with many row ids', () => {
  it('selects more than 1000 ids outside the script, in table order, and refuses more ids than rows untouched', async () => {
    const store = createRedisBodyStore({
      url: redis.url,
      keyPrefix: uniquePrefix(),
      logger: quietLogger,
    });
    try {
      const table = makeStoredTable(3000);
      const key = 'many';
      await store.put(key, table, { ttlMs: 60_000 });
      const tooMany = Array.from({ length: 3001 }, (_, i) => i);
      const refused = await store.take(key, tooMany).catch((e: unknown) => e);
      expect(S2SPError.isInstance(refused) && refused.code).toBe('invalid_request');
      const ids = [...Array.from({ length: 1500 }, (_, i) => i * 2), 2999, 5000];
      const taken = await readTaken(await store.take(key, ids));
      expect(taken?.tableRows).toBe(3000);
      expect(taken?.rows).toEqual(ids.slice(0, -1).map((id) => table.rows[id]));
      expect(taken?.missing).toEqual([5000]);
      expect(await store.take(key, [0])).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe('repeatable takes (PROTOCOL §7.10)', () => {
  const retry = (key: string, graceMs = 60_000) => ({ retry: { key, graceMs } });

  it('repeats a claimed large table for its key, keeps its keys for the window (the blocks a claim hold longer)', async () => {
    const prefix = uniquePrefix();
    const store = createRedisBodyStore({ url: redis.url, keyPrefix: prefix, logger: quietLogger });
    try {
      const table = wideTable(5000);
      const key = await tokenStorageKey(generateToken());
      await store.put(key, table, { ttlMs: 60_000 });
      const keys = await keysUnder(prefix);
      expect((await readTaken(await store.take(key, undefined, retry('r1', 1500))))?.rows).toEqual(
        table.rows,
      );
      expect(await store.take(key)).toBeUndefined();
      expect(await store.take(key, undefined, retry('r2', 1500))).toBeUndefined();
      expect((await readTaken(await store.take(key, undefined, retry('r1', 1500))))?.rows).toEqual(
        table.rows,
      );
      expect(await keysUnder(prefix)).toEqual(keys);
      // The metadata goes with the window; the blocks of a claimed table a claim hold later.
      await eventually(
        'the metadata expires with the window',
        async () => !(await keysUnder(prefix)).includes(`${prefix}{${key}}`),
      );
      expect(await store.take(key, undefined, retry('r1', 1500))).toBeUndefined();
      expect(await admin.pTTL(`${prefix}{${key}}:0`)).toBeGreaterThan(60_000);
    } finally {
      await store.close();
    }
  });

  it('keeps a repeatable entry in the shared budget for its window, then gives it back', async () => {
    const prefix = uniquePrefix();
    const store = createRedisBodyStore({
      url: redis.url,
      keyPrefix: prefix,
      maxBytes: 2000,
      logger: quietLogger,
    });
    try {
      const table = makeStoredTable(5); // charged about 1 450 with overhead: one fits
      await store.put('one', table, { ttlMs: 60_000 });
      expect((await store.take('one', [1], retry('r', 300)))?.tableRows).toBe(5);
      const error = await store.put('two', table, { ttlMs: 60_000 }).catch((e: unknown) => e);
      expect(S2SPError.isInstance(error) && error.code).toBe('store_full');
      await eventually('the window ends', async () =>
        store.put('two', table, { ttlMs: 60_000 }).then(
          () => true,
          () => false,
        ),
      );
    } finally {
      await store.close();
    }
  });

  it('refuses a retry key or grace window it cannot store, with invalid_config, leaving the entry', async () => {
    const store = createRedisBodyStore({
      url: redis.url,
      keyPrefix: uniquePrefix(),
      logger: quietLogger,
    });
    try {
      const key = await tokenStorageKey(generateToken());
      await store.put(key, makeStoredTable(2), { ttlMs: 60_000 });
      for (const bad of [retry('has space'), retry('x'.repeat(129)), retry('ok', 0)]) {
        const error = await store.take(key, undefined, bad).catch((e: unknown) => e);
        expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
      }
      expect((await store.take(key))?.tableRows).toBe(2);
    } finally {
      await store.close();
    }
  });
});
