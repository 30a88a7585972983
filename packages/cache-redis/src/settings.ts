/**
 * `@s2sp/cache-redis/settings`: the store options that apps and `s2sp-proxy` read from their
 * environment and command line, without loading a Redis client (an app that keeps bodies in
 * memory reads its settings with this and never imports `redis`).
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

import { z } from 'zod';
import { DEFAULT_KEY_PREFIX, KeyPrefixSchema } from './key-layout.js';

/**
 * The settable options of `createRedisBodyStore`: `keyPrefix`, from `S2SP_REDIS_PREFIX` or
 * `s2sp-proxy --redis-prefix`. The store's own options schema uses this member, so the rule, the
 * variable and the flag are stated once; read it with `optionsFromEnv` / `optionsFromFlags` from
 * `@s2sp/core/options`.
 */
export const RedisStoreSettingsSchema = z.object({
  keyPrefix: KeyPrefixSchema.default(DEFAULT_KEY_PREFIX).meta({
    env: 'S2SP_REDIS_PREFIX',
    flag: '--redis-prefix',
    description:
      '1–64 letters, digits or `: _ . - / |`; replicas that share entries use the same prefix, other apps another',
  }),
});

/** The settings {@link RedisStoreSettingsSchema} reads, each optional. */
export type RedisStoreSettings = Partial<z.output<typeof RedisStoreSettingsSchema>>;
