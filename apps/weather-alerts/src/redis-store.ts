import type { BodyStore } from '@s2sp/core/store';

/**
 * Creates the shared Redis body store (for several replicas behind one load balancer). Loaded on
 * demand, so an app that keeps bodies in memory never loads a Redis client.
 *
 * @param url - `redis://` or `rediss://` URL
 */
export async function createRedisStore(url: string): Promise<BodyStore> {
  const { createRedisBodyStore } = await import('@s2sp/cache-redis');
  return createRedisBodyStore({ url });
}
