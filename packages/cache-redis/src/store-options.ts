/**
 * The options of {@link createRedisBodyStore} and their validation. Everything is checked when
 * the store is created, so a misconfigured server fails at start-up rather than at its first
 * tool call.
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import { positiveOption } from '@s2sp/core/options';
import { assertValidKeyPrefix, DEFAULT_KEY_PREFIX } from './key-layout.js';
import { assertValidRedisUrl } from './owned-client.js';
import {
  clientKeyPrefix,
  detectClientKind,
  type RedisClientKind,
  type RedisClientLike,
} from './redis-connection.js';
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
   * Budget for the serialised rows of live entries, in JSON characters, shared by every store on
   * the same Redis and prefix. A put that would exceed it fails with `store_full`; live entries
   * are never evicted. Default: no budget of the store's own (Redis `maxmemory` still applies).
   */
  readonly maxBytes?: number;
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

/** Validated options with defaults filled in. */
export interface ResolvedStoreOptions {
  readonly url: string | undefined;
  readonly client: RedisClientLike | undefined;
  readonly clientKind: RedisClientKind | undefined;
  readonly keyPrefix: string;
  readonly maxBytes: number | undefined;
  readonly commandTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly evictionPolicyCheck: EvictionPolicyCheck;
  readonly logger: StoreLogger;
}

const MAX_TIMEOUT_MS = 600_000;

function timeout(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    value <= 0 ||
    value > MAX_TIMEOUT_MS
  ) {
    throw new S2SPError(
      'invalid_config',
      `${name} must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${String(value)}.`,
    );
  }
  return value;
}

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
  if (typeof options !== 'object' || options === null) {
    throw new S2SPError(
      'invalid_config',
      'createRedisBodyStore needs an options object with a url or a client.',
    );
  }
  const { url, client } = options;
  if (url !== undefined && client !== undefined) {
    throw new S2SPError(
      'invalid_config',
      'Give createRedisBodyStore either url or client, not both.',
    );
  }
  if (url === undefined && client === undefined) {
    throw new S2SPError(
      'invalid_config',
      'createRedisBodyStore needs a url (such as redis://localhost:6379) or a connected client.',
    );
  }
  if (url !== undefined) assertValidRedisUrl(url);
  let clientKind: RedisClientKind | undefined;
  if (client !== undefined) {
    clientKind = detectClientKind(client);
    if (!clientKind) {
      throw new S2SPError(
        'invalid_config',
        'client must be a node-redis client (createClient or createCluster from "redis") or an ioredis Redis or Cluster (for Sentinel, use ioredis with sentinels).',
      );
    }
    if (clientKeyPrefix(client) !== undefined) {
      throw new S2SPError(
        'invalid_config',
        "The Redis client has a keyPrefix of its own, which the store cannot work with (SCAN patterns are not prefixed). Create the client without keyPrefix and pass the prefix as the store's keyPrefix option.",
      );
    }
  }
  const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  assertValidKeyPrefix(keyPrefix);
  const maxBytes =
    options.maxBytes === undefined
      ? undefined
      : positiveOption('maxBytes', options.maxBytes, 0, { integer: true });
  const evictionPolicyCheck = options.evictionPolicyCheck ?? 'warn';
  if (!['warn', 'enforce', 'off'].includes(evictionPolicyCheck)) {
    throw new S2SPError(
      'invalid_config',
      `evictionPolicyCheck must be "warn", "enforce" or "off", got ${JSON.stringify(evictionPolicyCheck)}.`,
    );
  }
  if (options.logger !== undefined && !isLogger(options.logger)) {
    throw new S2SPError(
      'invalid_config',
      'logger must have info, warn and error methods (an @s2sp/server logger, pino or console fits).',
    );
  }
  return {
    url,
    client,
    clientKind,
    keyPrefix,
    maxBytes,
    commandTimeoutMs: timeout('commandTimeoutMs', options.commandTimeoutMs, 5000),
    connectTimeoutMs: timeout('connectTimeoutMs', options.connectTimeoutMs, 5000),
    evictionPolicyCheck,
    logger: options.logger ?? defaultStoreLogger,
  };
}
