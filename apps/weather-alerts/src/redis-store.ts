import type { BodyStore } from '@s2sp/core';

/** The part of `@s2sp/cache-redis` this app uses. */
interface CacheRedisModule {
  createRedisBodyStore(options: { url: string }): BodyStore | Promise<BodyStore>;
}

// A variable specifier keeps both TypeScript and the bundler from resolving the package at build
// time: the app builds, type-checks and runs with the in-memory store even where
// @s2sp/cache-redis is not built (or not installed); only REDIS_URL needs it.
const CACHE_REDIS = '@s2sp/cache-redis';

/**
 * Creates the shared Redis body store (for several replicas behind one load balancer).
 *
 * @param url - `redis://` or `rediss://` URL
 * @throws Error explaining that `@s2sp/cache-redis` is needed, when it cannot be loaded
 */
export async function createRedisStore(url: string): Promise<BodyStore> {
  let module: Partial<CacheRedisModule>;
  try {
    module = (await import(CACHE_REDIS)) as Partial<CacheRedisModule>;
  } catch (error) {
    throw new Error(
      `REDIS_URL is set, but ${CACHE_REDIS} could not be loaded (${error instanceof Error ? error.message : String(error)}). Build or install it, or unset REDIS_URL to keep bodies in memory.`,
      { cause: error },
    );
  }
  if (typeof module.createRedisBodyStore !== 'function') {
    throw new Error(`${CACHE_REDIS} does not export createRedisBodyStore; update it.`);
  }
  return module.createRedisBodyStore({ url });
}
