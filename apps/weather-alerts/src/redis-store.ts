import type { BodyStore } from '@s2sp/core/store';
import type { Logger } from '@s2sp/server';

/** Where the app's Redis store is and whose it is. */
export interface RedisStoreSettings {
  /** `redis://` or `rediss://` URL. */
  readonly url: string;
  /** Prefix of every key (`S2SP_REDIS_PREFIX`); the store's default when undefined. */
  readonly keyPrefix: string | undefined;
  /** The app's name, kept in `<prefix>owner` so that another app on the same prefix is warned. */
  readonly owner: string;
  /** Where the store's warnings go (a prefix shared with another app, connection trouble). */
  readonly logger: Logger;
}

/**
 * Creates the shared Redis body store (for several replicas behind one load balancer). Loaded on
 * demand, so an app that keeps bodies in memory never loads a Redis client.
 *
 * @param settings - URL, key prefix, owner name and logger
 */
export async function createRedisStore(settings: RedisStoreSettings): Promise<BodyStore> {
  const { createRedisBodyStore } = await import('@s2sp/cache-redis');
  return createRedisBodyStore({
    url: settings.url,
    owner: settings.owner,
    logger: settings.logger,
    ...(settings.keyPrefix !== undefined && { keyPrefix: settings.keyPrefix }),
  });
}
