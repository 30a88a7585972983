import { describeBodyStoreContract } from '@s2sp/core/testing';
import { type RedisTestServer, startRedis, startRedisCluster } from '@s2sp/test-utils';
import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { createRedisBodyStore } from '../src/index.js';
import { quietLogger, uniquePrefix } from './helpers.js';

// The shared BodyStore contract, unchanged, against real Redis servers through every kind of
// client the store accepts, with the near cache (the default) and without it. Each store gets its
// own key prefix, so stats() sees only its entries.

let redis: RedisTestServer;
let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
let ioredis: Redis;
let nodeRedis: ReturnType<typeof createClient>;
let nodeCluster: ReturnType<typeof createCluster>;
let ioCluster: Cluster;

beforeAll(async () => {
  [redis, cluster] = await Promise.all([startRedis(), startRedisCluster()]);
  ioredis = new Redis(redis.url, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  nodeRedis = createClient({ url: redis.url });
  nodeRedis.on('error', () => {});
  await nodeRedis.connect();
  nodeCluster = createCluster({ rootNodes: cluster.urls.map((url) => ({ url })) });
  nodeCluster.on('error', () => {});
  await nodeCluster.connect();
  ioCluster = new Cluster(cluster.nodes.map(({ host, port }) => ({ host, port })));
  await new Promise<void>((resolve, reject) => {
    ioCluster.once('ready', () => resolve());
    ioCluster.once('error', reject);
  });
});

afterAll(async () => {
  ioredis?.disconnect();
  ioCluster?.disconnect();
  await nodeRedis?.close();
  await nodeCluster?.close();
  await Promise.all([redis?.stop(), cluster?.stop()]);
});

describeBodyStoreContract(
  'Redis, url (node-redis owned by the store)',
  async () =>
    createRedisBodyStore({ url: redis.url, keyPrefix: uniquePrefix(), logger: quietLogger }),
  {
    makeBoundedStore: async (maxBytes) =>
      createRedisBodyStore({
        url: redis.url,
        keyPrefix: uniquePrefix(),
        maxBytes,
        logger: quietLogger,
      }),
  },
);

describeBodyStoreContract(
  'Redis, a user-supplied ioredis client',
  async () =>
    createRedisBodyStore({ client: ioredis, keyPrefix: uniquePrefix(), logger: quietLogger }),
  {
    makeBoundedStore: async (maxBytes) =>
      createRedisBodyStore({
        client: ioredis,
        keyPrefix: uniquePrefix(),
        maxBytes,
        logger: quietLogger,
      }),
  },
);

// The two node-redis runs keep no near copies, so that every take reads its rows from Redis.
describeBodyStoreContract('Redis, a user-supplied node-redis client, no near cache', async () =>
  createRedisBodyStore({
    client: nodeRedis,
    keyPrefix: uniquePrefix(),
    logger: quietLogger,
    nearCacheBytes: 0,
  }),
);

describeBodyStoreContract(
  'Redis Cluster of 3 masters, node-redis createCluster, no near cache',
  async () =>
    createRedisBodyStore({
      client: nodeCluster,
      keyPrefix: uniquePrefix(),
      logger: quietLogger,
      nearCacheBytes: 0,
    }),
  {
    makeBoundedStore: async (maxBytes) =>
      createRedisBodyStore({
        client: nodeCluster,
        keyPrefix: uniquePrefix(),
        maxBytes,
        logger: quietLogger,
        nearCacheBytes: 0,
      }),
  },
);

describeBodyStoreContract('Redis Cluster of 3 masters, ioredis Cluster', async () =>
  createRedisBodyStore({ client: ioCluster, keyPrefix: uniquePrefix(), logger: quietLogger }),
);
