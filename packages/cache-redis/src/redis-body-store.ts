/**
 * The Redis body store: the shared data plane of several S2SP resource-server replicas.
 *
 * @module
 */

import {
  type BodyStore,
  type BodyStoreStats,
  type PutOptions,
  S2SPError,
  type StoredTable,
  type TakenRows,
} from '@s2sp/core';
import { assertValidTtl, storedTableSize } from '@s2sp/core/internal';
import { type ByteBudget, createByteBudget } from './byte-budget.js';
import { checkEvictionPolicy, type EvictionPolicyReport } from './eviction-policy.js';
import {
  assertValidStorageKey,
  BYTES_FIELD,
  entryKey,
  entryScanPattern,
  ROWS_FIELD,
} from './key-layout.js';
import { PUT_CHUNK, runScript, TAKE, TAKE_LATE } from './lua-scripts.js';
import { createOwnedClient, type OwnedClient } from './owned-client.js';
import { RedisClock } from './redis-clock.js';
import {
  type NodeSender,
  type RedisClientKind,
  type RedisClientLike,
  wrapClient,
} from './redis-connection.js';
import { chunkPages, type PageChunk, rowsPerPage, splitPage } from './row-pages.js';
import { RedisLateError, toStoreError, withTimeout } from './store-errors.js';
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

/** A put gets one command timeout per this many characters. */
const CHARS_PER_TIMEOUT = 16 * 1024 * 1024;
/** TTL of a half-written entry (it is invisible until its last chunk sets the real TTL). */
const MIN_HOLD_MS = 60_000;
/** How often `evictionPolicyCheck: "enforce"` looks again after finding a wrong policy. */
const POLICY_RECHECK_MS = 30_000;

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (typeof value === 'number') return String(value);
  return undefined; // nil (null) or, with RESP3, Lua false
}

/** An entry or a reply that is not what this store writes: another program shares the prefix. */
function corrupt(what: string): S2SPError {
  return new S2SPError(
    'internal',
    `The S2SP cache found ${what} in Redis. Make sure nothing else writes under the store's keyPrefix.`,
  );
}

function parseColumns(value: unknown): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text(value) ?? 'null');
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((c) => typeof c === 'string'))
    throw corrupt('an entry with unreadable columns');
  return parsed;
}

interface Taken {
  readonly result: TakenRows;
  readonly bytes: number;
}

/** Reads the TAKE script's answer (see lua-scripts for its shape). */
function parseTakeReply(reply: unknown, all: boolean): Taken | undefined {
  if (reply === null || reply === undefined || reply === false) return undefined;
  if (!Array.isArray(reply) || reply.length < 4) throw corrupt('an unexpected reply to a take');
  const tableRows = Number(text(reply[1]));
  let rows: (string | undefined)[];
  if (all) {
    rows = [];
    const perPage = Number(text(reply[3]));
    for (let i = 4; i < reply.length; i++) {
      for (const row of splitPage(text(reply[i]) ?? '', perPage)) rows.push(row);
    }
    if (rows.length !== tableRows) throw corrupt('an entry whose rows do not add up');
  } else {
    rows = new Array(reply.length - 4);
    for (let i = 4; i < reply.length; i++) rows[i - 4] = text(reply[i]);
  }
  return {
    result: { columns: parseColumns(reply[0]), tableRows, rows },
    bytes: Number(text(reply[2])),
  };
}

function errorLabel(error: unknown): string {
  if (typeof error !== 'object' || error === null) return typeof error;
  const { code, name } = error as { code?: unknown; name?: unknown };
  return typeof code === 'string' ? code : typeof name === 'string' ? name : 'Error';
}

/**
 * Creates a {@link BodyStore} on Redis (one node or a Redis Cluster), so that several S2SP
 * resource-server replicas share their cached tables: a token issued by one replica is redeemed
 * at any other, exactly once.
 *
 * - Single use is atomic in Redis: one Lua script reads the requested rows and deletes the entry.
 * - TTL is Redis's own (`PEXPIRE`, set in the same script that writes the data), so expired
 *   entries are reclaimed by Redis without any request.
 * - Rows are stored in pages, one hash field each, so a few rows of a large table are read
 *   without the rest.
 * - While Redis is down or unreachable, every operation fails within `commandTimeoutMs` (at once
 *   when the client knows it is disconnected) with `S2SPError` code `unavailable`, and service
 *   resumes by itself when Redis is back. A take that failed never consumes its entry later.
 * - Redis answering OOM (`maxmemory` with `noeviction`) becomes `store_full`.
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
  const started = async () => {
    if (owned) await withTimeout(owned.started, config.connectTimeoutMs).catch(() => {});
  };

  let policy: { ok: boolean; at: number; message?: string } | undefined;
  let policyCheck: Promise<void> | undefined;
  const runPolicyCheck = async (): Promise<void> => {
    let report: EvictionPolicyReport;
    try {
      report = await withTimeout(
        connection.masters().then((masters) => checkEvictionPolicy(masters)),
        commandTimeoutMs,
      );
    } catch (error) {
      const mapped = toStoreError(error, 'check');
      if (mapped.code === 'unavailable') {
        if (config.evictionPolicyCheck === 'enforce') throw mapped;
        return; // look again at the next put
      }
      // INFO refused (an ACL, a managed service): say so once, then stop asking.
      const message =
        'Cannot read maxmemory-policy from Redis (INFO was refused). Make sure it is noeviction, then set evictionPolicyCheck: "off".';
      policy = { ok: config.evictionPolicyCheck !== 'enforce', at: Date.now(), message };
      logger.warn(message, { reason: errorLabel(error) });
      return;
    }
    policy = { ok: report.ok, at: Date.now(), ...(report.message && { message: report.message }) };
    if (!report.ok && report.message) {
      if (config.evictionPolicyCheck === 'warn') logger.warn(report.message);
      else logger.error(report.message);
    }
  };
  const ensurePolicy = async () => {
    if (config.evictionPolicyCheck === 'off') return;
    const stale =
      policy === undefined ||
      (!policy.ok &&
        config.evictionPolicyCheck === 'enforce' &&
        Date.now() - policy.at > POLICY_RECHECK_MS);
    if (stale) {
      policyCheck ??= runPolicyCheck().finally(() => {
        policyCheck = undefined;
      });
      await policyCheck;
    }
    if (policy && !policy.ok && config.evictionPolicyCheck === 'enforce') {
      throw new S2SPError(
        'invalid_config',
        policy.message ?? 'Redis maxmemory-policy must be noeviction.',
      );
    }
  };

  // Check the policy as soon as Redis answers, so a misconfiguration shows in the log at start-up
  // rather than at the first tool call; puts check again if this could not reach Redis.
  if (config.evictionPolicyCheck !== 'off')
    started()
      .then(() => (closed ? undefined : ensurePolicy()))
      .catch(() => {});

  const writeEntry = async (redisKey: string, table: StoredTable, size: number, ttlMs: number) => {
    const perPage = rowsPerPage(table.rows, size);
    const chunks = chunkPages(table.rows, perPage);
    const putTimeoutMs = commandTimeoutMs * Math.max(1, Math.ceil(size / CHARS_PER_TIMEOUT));
    const giveUpAt = Date.now() + putTimeoutMs;
    const columns = JSON.stringify(table.columns);
    const holdMs = String(Math.max(ttlMs, MIN_HOLD_MS));
    const send = (chunk: PageChunk, first: boolean, last: boolean) =>
      withTimeout(
        runScript(
          connection,
          PUT_CHUNK,
          [redisKey],
          [
            last ? String(ttlMs) : holdMs,
            `${first ? 1 : 0}${last ? 1 : 0}`,
            String(chunk.start),
            last ? columns : '',
            last ? String(table.rows.length) : '',
            last ? String(size) : '',
            last ? String(perPage) : '',
            ...chunk.pages,
          ],
        ),
        giveUpAt - Date.now(),
        putTimeoutMs,
      );
    const [head, ...rest] = chunks;
    const tail = rest.pop();
    if (!head) return;
    try {
      if (!tail) {
        await send(head, true, true);
        return;
      }
      // The first chunk clears the key before anything else lands; the middle ones go out
      // together (pipelined on one connection, in any order); the last one, which checks that
      // every page arrived and makes the entry visible, goes only once they all succeeded.
      await send(head, true, false);
      const middle = await Promise.allSettled(rest.map((chunk) => send(chunk, false, false)));
      const failed = middle.find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
      await send(tail, false, true);
    } catch (error) {
      // Best effort: a half-written entry is invisible anyway and expires after its hold time.
      connection.send(['UNLINK', redisKey], redisKey).catch(() => {});
      throw error;
    }
  };

  const scanNode = async (send: NodeSender) => {
    const pattern = entryScanPattern(keyPrefix);
    const seen = new Set<string>(); // SCAN may return a key more than once
    const totals = { entries: 0, rows: 0, bytes: 0 };
    let cursor = '0';
    do {
      const reply = await withTimeout(
        send(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000']),
        commandTimeoutMs,
      );
      if (!Array.isArray(reply) || !Array.isArray(reply[1]))
        throw corrupt('an unexpected reply to SCAN');
      cursor = text(reply[0]) ?? '0';
      const keys = (reply[1] as unknown[])
        .map((key) => text(key))
        .filter((key): key is string => key !== undefined && !seen.has(key));
      for (const key of keys) seen.add(key);
      const metas = await Promise.all(
        keys.map((key) =>
          withTimeout(send(['HMGET', key, ROWS_FIELD, BYTES_FIELD]), commandTimeoutMs),
        ),
      );
      for (const meta of metas) {
        // No metadata: expired meanwhile, or still being written. Neither is a live entry.
        const rows = Array.isArray(meta) ? text(meta[0]) : undefined;
        if (rows === undefined) continue;
        totals.entries++;
        totals.rows += Number(rows);
        totals.bytes += Number(text((meta as unknown[])[1]) ?? 0);
      }
    } while (cursor !== '0');
    return totals;
  };

  return {
    clientKind: connection.kind,

    async put(key: string, table: StoredTable, { ttlMs }: PutOptions): Promise<void> {
      assertOpen();
      assertValidTtl(ttlMs);
      assertValidStorageKey(key);
      await started();
      try {
        await ensurePolicy();
        const size = storedTableSize(table);
        if (budget) await budget.reserve(key, size, ttlMs);
        try {
          await writeEntry(entryKey(keyPrefix, key), table, size, ttlMs);
        } catch (error) {
          budget?.release(key, size).catch(() => {});
          throw error;
        }
      } catch (error) {
        throw toStoreError(error, 'put');
      }
    },

    async take(key: string, rowIds?: readonly number[]): Promise<TakenRows | undefined> {
      assertOpen();
      assertValidStorageKey(key);
      await started();
      const giveUpAt = Date.now() + commandTimeoutMs;
      try {
        const deadline = await withTimeout(
          clock.deadline(giveUpAt, commandTimeoutMs),
          commandTimeoutMs,
        );
        const args = rowIds
          ? [String(deadline), 'some', ...rowIds.map((id) => String(id))]
          : [String(deadline), 'all'];
        const reply = await withTimeout(
          runScript(connection, TAKE, [entryKey(keyPrefix, key)], args),
          giveUpAt - Date.now(),
          commandTimeoutMs,
        );
        if (reply === TAKE_LATE) throw new RedisLateError();
        const taken = parseTakeReply(reply, rowIds === undefined);
        if (!taken) return undefined;
        // The entry is already gone; a release that fails only delays the budget until expiry.
        if (budget) await budget.release(key, taken.bytes).catch(() => {});
        return taken.result;
      } catch (error) {
        throw toStoreError(error, 'take');
      }
    },

    async stats(): Promise<BodyStoreStats> {
      assertOpen();
      await started();
      try {
        const masters = await withTimeout(connection.masters(), commandTimeoutMs);
        const totals = await Promise.all(masters.map(scanNode));
        return totals.reduce(
          (sum, node) => ({
            entries: sum.entries + node.entries,
            rows: sum.rows + node.rows,
            bytes: sum.bytes + node.bytes,
          }),
          { entries: 0, rows: 0, bytes: 0 },
        );
      } catch (error) {
        throw toStoreError(error, 'stats');
      }
    },

    async checkEvictionPolicy(): Promise<EvictionPolicyReport> {
      assertOpen();
      await started();
      let report: EvictionPolicyReport;
      try {
        report = await withTimeout(
          connection.masters().then((masters) => checkEvictionPolicy(masters)),
          commandTimeoutMs,
        );
      } catch (error) {
        throw toStoreError(error, 'check');
      }
      // A fixed policy takes effect at once for evictionPolicyCheck "enforce".
      policy = {
        ok: report.ok,
        at: Date.now(),
        ...(report.message && { message: report.message }),
      };
      return report;
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (owned) await owned.close();
      unwatch();
    },
  };
}
