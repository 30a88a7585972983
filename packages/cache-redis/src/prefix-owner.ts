/**
 * The owner marker of a key prefix: a store given an `owner` (the app's name) writes
 * `<prefix>owner` holding that name, with a TTL it refreshes while it runs, and warns once when it
 * finds another name there. Two apps on one Redis and one prefix redeem each other's
 * `resource_url`s and count each other's entries; replicas of one app share a name, so they do not
 * warn. The marker is advisory: it never blocks a put or a take.
 *
 * @module
 */

import { errorLabel } from './policy-guard.js';
import type { RedisConnection } from './redis-connection.js';
import { withTimeout } from './store-errors.js';
import type { StoreLogger } from './store-logger.js';

/** How long the marker outlives its last refresh: a stopped app's name is gone after it. */
export const OWNER_TTL_MS = 60_000;

/** The marker's key. Without braces it never matches the entries' SCAN pattern (`<prefix>{*}`). */
export function ownerKey(prefix: string): string {
  return `${prefix}owner`;
}

/** Options of {@link startOwnerMarker}. */
export interface OwnerMarkerOptions {
  readonly connection: RedisConnection;
  readonly keyPrefix: string;
  readonly owner: string;
  readonly commandTimeoutMs: number;
  readonly logger: StoreLogger;
}

/** A running marker: {@link OwnerMarker.claim} writes or refreshes it now, `stop` ends the refreshes. */
export interface OwnerMarker {
  /** Claims the prefix (or refreshes the claim), warning once per other owner found. */
  claim(): Promise<void>;
  stop(): void;
}

function text(reply: unknown): string | undefined {
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('utf8');
  return undefined;
}

/**
 * Writes the owner marker now and every third of {@link OWNER_TTL_MS} (on an unreferenced
 * timer, so it never keeps a process alive) until stopped.
 */
export function startOwnerMarker(options: OwnerMarkerOptions): OwnerMarker {
  const { connection, keyPrefix, owner, commandTimeoutMs, logger } = options;
  const key = ownerKey(keyPrefix);
  const warned = new Set<string>();
  const send = (args: string[]) => withTimeout(connection.send(args, key), commandTimeoutMs);

  const claim = async () => {
    try {
      const set = await send(['SET', key, owner, 'NX', 'PX', String(OWNER_TTL_MS)]);
      if (text(set) === 'OK') return;
      const found = text(await send(['GET', key]));
      if (found === undefined || found === owner) {
        await send(['SET', key, owner, 'PX', String(OWNER_TTL_MS)]);
        return;
      }
      if (warned.has(found)) return;
      warned.add(found);
      logger.warn(
        'redis: another app already uses this key prefix on this Redis; each redeems the other’s resource_urls and counts its entries. Give every app its own prefix (keyPrefix, S2SP_REDIS_PREFIX or --redis-prefix)',
        { keyPrefix, owner, otherOwner: found },
      );
    } catch (error) {
      // Redis down: the store's own calls report it; the marker is tried again at the next tick.
      logger.info('redis: could not write the key prefix owner marker', {
        reason: errorLabel(error),
      });
    }
  };
  const timer = setInterval(() => void claim(), OWNER_TTL_MS / 3);
  timer.unref?.();
  return { claim, stop: () => clearInterval(timer) };
}
