/**
 * The options of {@link createRedisBodyStore} and their validation. Everything is checked when
 * the store is created, so a misconfigured server fails at start-up rather than at its first
 * tool call.
 *
 * @module
 */

import { byteSize, milliseconds, parseOptions } from '@s2sp/core/options';
import { z } from 'zod';
import {
  clientKeyPrefix,
  detectClientKind,
  type RedisClientKind,
  type RedisClientLike,
} from './redis-connection.js';
import { RedisStoreSettingsSchema } from './settings.js';
import { defaultStoreLogger, type StoreLogger } from './store-logger.js';

/** What the store does about a Redis whose `maxmemory-policy` is not `noeviction`. */
export type EvictionPolicyCheck = 'warn' | 'enforce' | 'off';

/** Options for {@link createRedisBodyStore}. Give exactly one of `url` and `client`. */
export interface RedisBodyStoreOptions {
  /**
   * A `redis://` or `rediss://` URL. The store creates a node-redis client for it, configured to
   * fail fast while Redis is down and to reconnect by itself, and closes it in `close()`.
   */
  readonly url?: string;
  /**
   * A client of your own: node-redis `createClient()` / `createCluster()` (connect it first), or
   * an ioredis `Redis` / `Cluster`. The store never closes it. For fast failures while Redis is
   * down, create it with `disableOfflineQueue: true` (node-redis) or `enableOfflineQueue: false`
   * (ioredis); the store's own timeout bounds every call either way. It must not have a
   * `keyPrefix` of its own: use this store's `keyPrefix`.
   */
  readonly client?: RedisClientLike;
  /**
   * Prefix of every key the store writes. Default `"s2sp:"`. 1 to 64 letters, digits or
   * `: _ . - / |`. Replicas that share entries must use the same prefix.
   */
  readonly keyPrefix?: string;
  /**
   * The name of the app using this prefix (`"weather-alerts"`), 1 to 64 printable ASCII
   * characters. When given, the store writes the marker key `<prefix>owner` holding it, with a
   * 60 s TTL refreshed every 20 s while the store is open, and logs one warning when it finds
   * another name there: two apps sharing a prefix redeem each other's `resource_url`s and count
   * each other's entries. Replicas of one app give the same name. Default: no marker.
   */
  readonly owner?: string;
  /**
   * Budget for the serialised rows of live entries, in JSON characters, shared by every store on
   * the same Redis and prefix. A put that would exceed it fails with `store_full`; live entries
   * are never evicted. Default: no budget of the store's own (Redis `maxmemory` still applies).
   */
  readonly maxBytes?: number;
  /**
   * Bytes of this replica's near cache: the tables it has just written, kept encoded in its own
   * memory for their TTL (oldest dropped first when full; a table larger than the cache is not
   * kept), so that a redemption reaching the replica that minted its table is claimed in Redis
   * without reading its rows there. Single use and expiry are still decided by Redis. `0` turns it
   * off. Default 64 MiB.
   */
  readonly nearCacheBytes?: number;
  /**
   * How long any one Redis call may take before the operation fails with `unavailable`, in ms.
   * Default 5000. A put of a very large table gets one such period per 16 MiB.
   */
  readonly commandTimeoutMs?: number;
  /** With `url`: how long connecting may take, in ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /**
   * What to do when Redis's `maxmemory-policy` is not `noeviction` (checked when the store starts,
   * and at the first put if Redis was not reachable then):
   * `"warn"` (default) logs a warning once; `"enforce"` makes puts fail with `invalid_config`
   * until the policy is fixed (checked again every 30 s); `"off"` skips the check (for managed
   * services that hide `INFO`).
   */
  readonly evictionPolicyCheck?: EvictionPolicyCheck;
  /** Where connection trouble and warnings go. Default: standard error, warnings and errors only. */
  readonly logger?: StoreLogger;
}

const MAX_TIMEOUT_MS = 600_000;

/**
 * The options of {@link createRedisBodyStore}: each one's rule, default and description (the
 * options table of this package's README is checked against it).
 */
export const RedisBodyStoreOptionsSchema = z
  .object({
    // The rules, variables and flags of url and keyPrefix, stated once in ./settings.
    url: RedisStoreSettingsSchema.shape.url,
    client: z
      .custom<RedisClientLike>(
        (client) => detectClientKind(client as RedisClientLike) !== undefined,
        {
          error:
            'must be a node-redis client (createClient or createCluster from "redis") or an ioredis Redis or Cluster (for Sentinel, use ioredis with sentinels)',
        },
      )
      .refine((client) => clientKeyPrefix(client) === undefined, {
        error:
          "has a keyPrefix of its own, which the store cannot work with (SCAN patterns are not prefixed). Create the client without keyPrefix and pass the prefix as the store's keyPrefix option",
      })
      .optional()
      .meta({
        type: 'client',
        description:
          'node-redis `createClient()`/`createCluster()` (connected), or ioredis `Redis`/`Cluster`; never closed by the store',
      }),
    keyPrefix: RedisStoreSettingsSchema.shape.keyPrefix,
    owner: z
      .string()
      .regex(/^[\x21-\x7e]{1,64}$/)
      .optional()
      .meta({
        allowed: '1 to 64 printable ASCII characters without spaces (such as "weather-alerts")',
        defaultText: 'none',
        description:
          "the app's name, kept in the marker key `<prefix>owner`; a store finding another name there logs a warning",
      }),
    maxBytes: byteSize().optional().meta({
      defaultText: 'none',
      description:
        'budget for the rows of live entries, in JSON characters, shared by every store on the prefix',
    }),
    nearCacheBytes: byteSize({ min: 0 })
      .default(64 * 1024 * 1024)
      .describe(
        "this replica's copies of the tables it wrote, for redemptions that reach it (`0`: none)",
      ),
    commandTimeoutMs: milliseconds({ max: MAX_TIMEOUT_MS })
      .default(5000)
      .describe(
        'longest wait for any Redis call before `unavailable` (a put gets one per 16 MiB of rows)',
      ),
    connectTimeoutMs: milliseconds({ max: MAX_TIMEOUT_MS })
      .default(5000)
      .describe('with `url`: longest wait for a connection'),
    evictionPolicyCheck: z.enum(['warn', 'enforce', 'off']).default('warn').meta({
      allowed: '"warn", "enforce" or "off"',
      description: '`"warn"`, `"enforce"` or `"off"` (see above)',
    }),
    logger: z
      .custom<StoreLogger>(isLogger, {
        error:
          'must have info, warn and error methods (an @s2sp/server logger, pino or console fits)',
      })
      .optional()
      .meta({
        defaultText: 'stderr',
        type: 'Logger',
        description:
          '`{ info, warn, error }`; an `@s2sp/server` logger, pino or `console` fit. Default: warnings and errors on standard error',
      }),
  } satisfies Record<keyof RedisBodyStoreOptions, z.ZodType>)
  // Exactly one of url and client; the error is about the url, which most setups give.
  .refine((options) => !(options.url !== undefined && options.client !== undefined), {
    error: 'cannot be given with url: give either url or client, not both',
    path: ['client'],
  })
  .refine((options) => options.url !== undefined || options.client !== undefined, {
    error: 'is required: give a url (such as redis://localhost:6379) or a connected client',
    path: ['url'],
  });

/**
 * Validated options with defaults filled in: what the schema makes of them, with the caller's own
 * client, its kind, and a logger always there.
 */
export type ResolvedStoreOptions = Omit<
  z.output<typeof RedisBodyStoreOptionsSchema>,
  'client' | 'logger'
> & {
  readonly client: RedisClientLike | undefined;
  readonly clientKind: RedisClientKind | undefined;
  readonly logger: StoreLogger;
};

function isLogger(value: unknown): value is StoreLogger {
  if (typeof value !== 'object' || value === null) return false;
  const logger = value as Record<string, unknown>;
  return ['info', 'warn', 'error'].every((level) => typeof logger[level] === 'function');
}

/**
 * Validates {@link RedisBodyStoreOptions}.
 *
 * @throws S2SPError `invalid_config` naming the first option that cannot work
 */
export function resolveStoreOptions(options: RedisBodyStoreOptions): ResolvedStoreOptions {
  const parsed = parseOptions(RedisBodyStoreOptionsSchema, options, {
    factory: 'createRedisBodyStore',
  });
  return {
    ...parsed,
    // The caller's own client object (zod keeps the reference; this says so).
    client: options.client,
    clientKind: options.client === undefined ? undefined : detectClientKind(options.client),
    // Stated even when unset, so a resolved store always lists every option.
    maxBytes: parsed.maxBytes,
    owner: parsed.owner,
    url: parsed.url,
    logger: parsed.logger ?? defaultStoreLogger,
  };
}
