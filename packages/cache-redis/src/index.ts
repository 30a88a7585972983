/**
 * `@s2sp/cache-redis`: a shared Redis body store for S2SP, so that several resource-server
 * replicas behind a load balancer serve one data plane. Works with one Redis node or a Redis
 * Cluster, through node-redis (a dependency) or ioredis (an optional peer dependency).
 *
 * This file is the package's public API: adding an export here is an API change.
 *
 * @module
 */

export { createRedisBodyStore, type RedisBodyStore } from './redis-body-store.js';
export type {
  IORedisClusterLike,
  IORedisLike,
  NodeRedisClientLike,
  NodeRedisClusterLike,
  RedisClientLike,
} from './redis-connection.js';
export type { RedisBodyStoreOptions } from './store-options.js';
