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
 * A Redis URL, checked without echoing it (it may hold a password): `redis:` or `rediss:` (any
 * case) with a host. The one rule of a Redis URL, for the store's `url`, `REDIS_URL` and
 * `s2sp-proxy --redis`.
 */
const RedisUrlSchema: z.ZodType<string, string> = z
  .string()
  .refine((url) => {
    try {
      const parsed = new URL(url);
      return ['redis:', 'rediss:'].includes(parsed.protocol) && parsed.hostname !== '';
    } catch {
      return false;
    }
  })
  .meta({
    allowed:
      'a redis:// or rediss:// URL with a host, such as redis://localhost:6379 or rediss://user:password@cache.example.com:6380/0',
    type: 'URL',
  });

/**
 * The settable options of `createRedisBodyStore`: `url`, from `REDIS_URL` or `s2sp-proxy --redis`,
 * and `keyPrefix`, from `S2SP_REDIS_PREFIX` or `s2sp-proxy --redis-prefix`. The store's own
 * options schema uses these members, so each rule, variable and flag is stated once; read them
 * with `readSettings` from `@s2sp/core/options`.
 */
export const RedisStoreSettingsSchema = z.object({
  url: RedisUrlSchema.optional().meta({
    env: 'REDIS_URL',
    flag: '--redis',
    description:
      '`redis://` or `rediss://` URL; the store creates, connects and closes a node-redis client',
  }),
  keyPrefix: KeyPrefixSchema.default(DEFAULT_KEY_PREFIX).meta({
    env: 'S2SP_REDIS_PREFIX',
    flag: '--redis-prefix',
    description:
      '1–64 letters, digits or `: _ . - / |`; replicas that share entries use the same prefix, other apps another',
  }),
});

/** The settings {@link RedisStoreSettingsSchema} reads, each optional. */
export type RedisStoreSettings = Partial<z.output<typeof RedisStoreSettingsSchema>>;
