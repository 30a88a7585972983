/**
 * The optional `maxBytes` budget, shared by every replica that uses the same Redis and prefix.
 * Each entry reserves its size before it is written; the reservation is given back when the entry
 * is taken, and dropped when it expires (Redis's clock decides, in the reserve script). The
 * budget never evicts: a put that does not fit fails with `store_full`.
 *
 * @module
 */
import { S2SPError } from '@s2sp/core';
import { budgetKey } from './key-layout.js';
import { BUDGET_RELEASE, BUDGET_RESERVE, runScript } from './lua-scripts.js';
import type { RedisConnection } from './redis-connection.js';

/** Reserves and releases room in the shared byte budget. */
export interface ByteBudget {
  /**
   * Reserves `size` for the entry `key` until it expires.
   * @throws S2SPError `store_full` when it does not fit
   */
  reserve(key: string, size: number, ttlMs: number): Promise<void>;
  /** Gives a reservation back; a missing one is ignored. */
  release(key: string, size: number): Promise<void>;
}

/**
 * Creates the budget bookkeeping for `prefix`: a sorted set `<prefix>#budget{#}` of reservations
 * (`<key>:<size>` scored by expiry) and a counter `<prefix>#budget{#}:used`, on one cluster slot.
 *
 * @param connection - where the budget lives
 * @param prefix - the store's key prefix
 * @param maxBytes - the budget, in JSON characters
 * @param call - wraps each Redis call (timeout and error mapping)
 */
export function createByteBudget(
  connection: RedisConnection,
  prefix: string,
  maxBytes: number,
  call: <T>(promise: Promise<T>) => Promise<T>,
): ByteBudget {
  const base = budgetKey(prefix);
  const keys = [`${base}{#}`, `${base}{#}:used`];
  return {
    async reserve(key, size, ttlMs) {
      const reply = await call(
        runScript(connection, BUDGET_RESERVE, keys, [
          String(maxBytes),
          String(size),
          `${key}:${size}`,
          String(ttlMs),
        ]),
      );
      const [granted, used] = Array.isArray(reply) ? reply.map(Number) : [];
      if (granted === 1) return;
      const hint =
        size > maxBytes
          ? 'This one result is larger than the whole cache: ask for fewer rows, or the operator can raise maxBytes.'
          : 'Retry in a few minutes when older results expire, ask for fewer rows, or call the tool with mode="sync"; the operator can raise maxBytes.';
      throw new S2SPError(
        'store_full',
        `The S2SP cache is full (${used ?? '?'} of ${maxBytes} bytes in use, this result needs ${size}). ${hint}`,
      );
    },
    async release(key, size) {
      await call(runScript(connection, BUDGET_RELEASE, keys, [`${key}:${size}`, String(size)]));
    },
  };
}
