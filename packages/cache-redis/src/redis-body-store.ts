/**
 * The Redis body store: the shared data plane of several S2SP resource-server replicas.
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import {
  assertValidTtl,
  type BodyStore,
  type BodyStoreStats,
  chargedEntryBytes,
  collectBytes,
  createBytePool,
  type PutOptions,
  type StoredTable,
  selectRows,
  storedTableSize,
  type TakenRows,
  type TakeOptions,
  type TakeRetry,
  tooManyRowIds,
} from '@s2sp/core/store';
import { type ByteBudget, createByteBudget } from './byte-budget.js';
import { type Claimed, claimEntry, takeEntry } from './entry-reader.js';
import { scanNode, sumStats } from './entry-scan.js';
import { writeEntry } from './entry-writer.js';
import type { EvictionPolicyReport } from './eviction-policy.js';
import { assertValidStorageKey, entryKey } from './key-layout.js';
import { createNearCache, type NearEntry } from './near-cache.js';
import { createOwnedClient, type OwnedClient } from './owned-client.js';
import { createPolicyGuard, errorLabel } from './policy-guard.js';
import { type OwnerMarker, startOwnerMarker } from './prefix-owner.js';
import { RedisClock } from './redis-clock.js';
import { type RedisClientKind, type RedisClientLike, wrapClient } from './redis-connection.js';
import { toStoreError, withTimeout } from './store-errors.js';
import { type RedisBodyStoreOptions, resolveStoreOptions } from './store-options.js';

/** A {@link BodyStore} on Redis, with a way to check the Redis configuration it relies on. */
export interface RedisBodyStore extends BodyStore {
  /** The kind of client the store talks through. */
  readonly clientKind: RedisClientKind;
  /**
   * Reads `maxmemory-policy` from every Redis master; `ok` is true only for `noeviction`. Use it
   * in a readiness probe or a start-up script.
   * @throws S2SPError `unavailable` when Redis cannot be reached
   */
  checkEvictionPolicy(): Promise<EvictionPolicyReport>;
}

/** Above this many row ids a take claims the whole entry and selects the rows itself. */
const SCRIPT_ROW_IDS = 1000;

/**
 * Creates a {@link BodyStore} on Redis (one node or a Redis Cluster), so that several S2SP
 * resource-server replicas share their cached tables: a token issued by one replica is redeemed
 * at any other, exactly once.
 *
 * - Single use is atomic in Redis: one small Lua script decides which take gets the entry and
 *   removes it (reading the requested rows, or claiming a large table's blocks for its reader).
 * - TTL is Redis's own (`PEXPIRE`, set in the same script that writes the data), so expired
 *   entries are reclaimed by Redis without any request.
 * - Rows are stored as their UTF-8 JSON in binary blocks of 1 MiB with row offsets: a whole
 *   table is read back with a few large binary GETs and written to the response as it is, and a
 *   few rows of a large table are read without the rest.
 * - While Redis is down or unreachable, every operation fails within `commandTimeoutMs` (at once
 *   when the client knows it is disconnected) with `S2SPError` code `unavailable`, and service
 *   resumes by itself when Redis is back. A take that failed never consumes its entry later.
 * - Redis answering OOM (`maxmemory` with `noeviction`) becomes `store_full`.
 * - Each replica keeps the tables it wrote, for their TTL, in a near cache of its own
 *   (`nearCacheBytes`, 64 MiB by default): a redemption that reaches the replica that minted its
 *   table is claimed in Redis without reading the rows, which come from this process, as the
 *   memory store's do.
 *
 * Run Redis with `maxmemory-policy noeviction`: see {@link RedisBodyStore.checkEvictionPolicy}.
 *
 * @param options - a `url` or a `client`, and optional prefix, budget and timeouts
 * @throws S2SPError `invalid_config` for options that cannot work
 * @example
 * ```ts
 * import { createRedisBodyStore } from '@s2sp/cache-redis';
 * import { createS2SPServer } from '@s2sp/server';
 *
 * const store = createRedisBodyStore({ url: process.env.REDIS_URL ?? 'redis://localhost:6379' });
 * const server = createS2SPServer({ name: 'weather', version: '1.0.0', store });
 * // … on shutdown: await server.close(); await store.close();
 * ```
 */
export function createRedisBodyStore(options: RedisBodyStoreOptions): RedisBodyStore {
  const config = resolveStoreOptions(options);
  const { keyPrefix, commandTimeoutMs, logger } = config;
  const owned: OwnedClient | undefined =
    config.url === undefined
      ? undefined
      : createOwnedClient({
          url: config.url,
          connectTimeoutMs: config.connectTimeoutMs,
          commandTimeoutMs,
        });
  const client: RedisClientLike | undefined = owned?.client ?? config.client;
  // resolveStoreOptions guarantees a url or a client; this keeps the types honest.
  if (!client)
    throw new S2SPError('invalid_config', 'createRedisBodyStore needs a url or a client.');
  const connection = wrapClient(client, commandTimeoutMs);
  // The near cache's tables are written into reusable buffers, within its budget with them: at
  // the rate a server mints tables, fresh buffers of a megabyte or more each make the engine
  // collect its whole heap every few dozen (see createBytePool).
  const pool = createBytePool({ maxFreeBytes: () => config.nearCacheBytes - near.bytes });
  const near = createNearCache({
    maxBytes: config.nearCacheBytes,
    onDrop: (entry) => pool.give(entry.joined),
  });
  const clock = new RedisClock(() => withTimeout(connection.send(['TIME']), commandTimeoutMs));
  const budget: ByteBudget | undefined =
    config.maxBytes === undefined
      ? undefined
      : createByteBudget(connection, keyPrefix, config.maxBytes, (promise) =>
          withTimeout(promise, commandTimeoutMs),
        );
  let closed = false;

  // Log an outage once when it starts and once when it ends, not on every reconnect attempt.
  // Listening to 'error' is also what keeps a Redis outage from crashing the process.
  let down = false;
  const unwatch = connection.watch({
    error(error) {
      if (down || closed) return;
      down = true;
      logger.warn(
        'redis: connection lost or refused; store operations fail with "unavailable" until it is back',
        { reason: errorLabel(error) },
      );
    },
    ready() {
      clock.reset(); // Redis may have come back on another host, with another clock.
      if (!down) return;
      down = false;
      logger.info('redis: connected again');
    },
  });

  const assertOpen = () => {
    if (closed) throw new S2SPError('invalid_config', 'This Redis body store has been closed.');
  };
  // Once the first connection attempt has settled there is nothing to wait for: operations then
  // skip the wait, which cost every take a timer and three promises.
  let startSettled = owned === undefined;
  owned?.started.then(() => {
    startSettled = true;
  });
  const started = async () => {
    if (owned && !startSettled)
      await withTimeout(owned.started, config.connectTimeoutMs).catch(() => {});
  };

  const policy = createPolicyGuard({
    connection,
    mode: config.evictionPolicyCheck,
    commandTimeoutMs,
    logger,
  });

  // Check the policy as soon as Redis answers, so a misconfiguration shows in the log at start-up
  // rather than at the first tool call; puts check again if this could not reach Redis.
  if (config.evictionPolicyCheck !== 'off')
    started()
      .then(() => (closed ? undefined : policy.ensure()))
      .catch(() => {});

  // The owner marker: claimed as soon as Redis answers, then refreshed while the store is open.
  const marker: OwnerMarker | undefined =
    config.owner === undefined
      ? undefined
      : startOwnerMarker({ connection, keyPrefix, owner: config.owner, commandTimeoutMs, logger });
  if (marker)
    started()
      .then(() => (closed ? undefined : marker.claim()))
      .catch(() => {});

  // The entry is already gone; a release that fails only delays the budget until expiry. A
  // repeatable take's entry stays for its grace window, and so does its reservation.
  const settleBudget = async (key: string, bytes: number, rows: number, retry?: TakeRetry) => {
    if (!budget) return;
    const charged = chargedEntryBytes(bytes, rows);
    await (retry ? budget.hold(key, charged, retry.graceMs) : budget.release(key, charged)).catch(
      () => {},
    );
  };

  // A take of a table kept near: the claim is a take of no rows (claimEntry: the same script, so
  // the same single use, deadline and expiry), the rows are cut from the copy here.
  const takeKept = async (
    key: string,
    kept: NearEntry,
    rowIds: readonly number[] | undefined,
  ): Promise<TakenRows | undefined> => {
    if (rowIds && rowIds.length > kept.ends.length) {
      near.restore(key, kept);
      throw tooManyRowIds(rowIds.length, kept.ends.length);
    }
    let claimed: Claimed | undefined;
    try {
      claimed = await claimEntry({
        connection,
        clock,
        redisKey: entryKey(keyPrefix, key),
        commandTimeoutMs,
      });
    } catch (error) {
      // A take that failed never consumed the entry: a retry may still find it here.
      near.restore(key, kept);
      throw toStoreError(error, 'take');
    }
    // Taken by another replica, or expired: the copy goes with it.
    if (!claimed) {
      pool.give(kept.joined);
      return undefined;
    }
    await settleBudget(key, claimed.bytes, claimed.tableRows);
    // The bytes are the taker's now (it may change them in place) until it says it is done.
    return selectRows(kept, rowIds, () => {
      if (!closed) pool.give(kept.joined);
    });
  };

  return {
    clientKind: connection.kind,

    async put(key: string, table: StoredTable, { ttlMs }: PutOptions): Promise<void> {
      assertOpen();
      assertValidTtl(ttlMs);
      assertValidStorageKey(key);
      await started();
      try {
        await policy.ensure();
        const size = storedTableSize(table);
        // The budget counts each entry's keys and offsets too, so empty results are not free.
        const cost = chargedEntryBytes(size, table.rows.length);
        if (budget) await budget.reserve(key, cost, ttlMs);
        let encoded: Awaited<ReturnType<typeof writeEntry>>;
        try {
          encoded = await writeEntry({
            connection,
            redisKey: entryKey(keyPrefix, key),
            table,
            size,
            ttlMs,
            commandTimeoutMs,
            ...(config.nearCacheBytes > 0 && { allocate: pool.allocate }),
          });
        } catch (error) {
          budget?.release(key, cost).catch(() => {});
          throw error;
        }
        // Kept from after the write: it expires a moment after the Redis entry, which a take
        // claims first, so an expired entry is never served from here.
        const kept = { columns: table.columns, ...encoded, expiresAt: Date.now() + ttlMs };
        if (!near.keep(key, kept)) pool.give(kept.joined);
      } catch (error) {
        throw toStoreError(error, 'put');
      }
    },

    async take(
      key: string,
      rowIds?: readonly number[],
      options?: TakeOptions,
    ): Promise<TakenRows | undefined> {
      assertOpen();
      assertValidStorageKey(key);
      const retry = options?.retry;
      if (retry) {
        assertValidTtl(retry.graceMs);
        assertValidStorageKey(retry.key);
      }
      await started();
      // A table this replica wrote: claimed in Redis without reading its rows. A repeatable take
      // reads Redis, which keeps the entry for its repeats, and the copy here goes.
      const kept = near.remove(key);
      if (kept && !retry) return takeKept(key, kept, rowIds);
      if (kept) pool.give(kept.joined);
      try {
        // Many ids: claim the whole entry and cut the rows here. The script's work then follows
        // the table's blocks, not the ids (each id costs Redis ~14 µs inside the script).
        const many = rowIds !== undefined && rowIds.length > SCRIPT_ROW_IDS;
        const taken = await takeEntry({
          connection,
          clock,
          redisKey: entryKey(keyPrefix, key),
          rowIds: many ? undefined : rowIds,
          ...(many && { selecting: rowIds.length }),
          commandTimeoutMs,
          ...(retry && { retry }),
        });
        if (!taken) return undefined;
        await settleBudget(key, taken.bytes, taken.result.tableRows, retry);
        if (!many) return taken.result;
        // The whole table is read into one buffer here, then cut like the memory store cuts.
        const { columns, ends, chunks } = taken.result;
        return selectRows({ columns, joined: await collectBytes(chunks), ends }, rowIds);
      } catch (error) {
        throw toStoreError(error, 'take');
      }
    },

    async stats(): Promise<BodyStoreStats> {
      assertOpen();
      await started();
      try {
        const masters = await withTimeout(connection.masters(), commandTimeoutMs);
        return sumStats(
          await Promise.all(masters.map((send) => scanNode(send, keyPrefix, commandTimeoutMs))),
        );
      } catch (error) {
        throw toStoreError(error, 'stats');
      }
    },

    async checkEvictionPolicy(): Promise<EvictionPolicyReport> {
      assertOpen();
      await started();
      return policy.checkNow();
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      near.clear();
      pool.clear();
      marker?.stop();
      if (owned) await owned.close();
      unwatch();
    },
  };
}
