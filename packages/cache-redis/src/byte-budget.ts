/**
 * The optional `maxBytes` budget, shared by every replica that uses the same Redis and prefix.
 * Each entry reserves its size before it is written; the reservation is given back when the entry
 * is taken, and dropped when it expires (Redis's clock decides, in the reserve script). The
 * budget never evicts: a put that does not fit fails with `store_full`.
 *
 * @module
 */

import { storeFullError } from '@s2sp/core/store';
import { budgetKey } from './key-layout.js';
import { LUA_EFFECTS, LUA_NOW, luaScript, runScript } from './lua-script.js';
import type { RedisConnection } from './redis-connection.js';

// The budget is a sorted set of reservations (member "<key>:<size>", score = expiry in Redis
// milliseconds) plus a counter of the reserved size. Reservations of expired entries are dropped
// lazily, at the next reservation, so the budget follows Redis's own expiry without a timer.
const DROP_EXPIRED = `local freed = 0
repeat
  local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 1000)
  for _, member in ipairs(expired) do
    freed = freed + tonumber(string.match(member, ':(%d+)$'))
  end
  if #expired > 0 then redis.call('ZREM', KEYS[1], unpack(expired)) end
until #expired < 1000
if freed > 0 then redis.call('DECRBY', KEYS[2], freed) end
`;

/**
 * Reserves room for a new entry in the byte budget, or refuses.
 *
 * KEYS[1] the reservation set, KEYS[2] the counter (same hash tag). ARGV: [1] the budget, [2] the
 * entry's size, [3] the member ("<key>:<size>"), [4] its TTL in ms.
 * Answers `[1, used]` when reserved, `[0, used]` when it does not fit.
 */
export const BUDGET_RESERVE = luaScript(
  'budget-reserve',
  `${LUA_EFFECTS}${LUA_NOW}${DROP_EXPIRED}local used = tonumber(redis.call('GET', KEYS[2]) or '0')
local size = tonumber(ARGV[2])
if used + size > tonumber(ARGV[1]) then return {0, used} end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[3])
redis.call('INCRBY', KEYS[2], size)
return {1, used + size}
`,
);

/**
 * Gives a reservation back (after a take, or a put that failed). Idempotent: the counter only
 * moves when the member was still there.
 *
 * KEYS as for {@link BUDGET_RESERVE}. ARGV: [1] the member, [2] its size.
 */
export const BUDGET_RELEASE = luaScript(
  'budget-release',
  `if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then redis.call('DECRBY', KEYS[2], ARGV[2]) end
return 1
`,
);

/**
 * Brings a reservation's expiry forward to `ms` from now (Redis's clock), for an entry kept for
 * the grace window of a repeatable take (PROTOCOL §7.10). It never moves it later: the window
 * ends with the entry's TTL at the latest, and a repeated take (which calls this again) charges
 * nothing more. A missing reservation is left missing.
 *
 * KEYS as for {@link BUDGET_RESERVE}. ARGV: [1] the member, [2] ms from now.
 */
export const BUDGET_HOLD = luaScript(
  'budget-hold',
  `${LUA_EFFECTS}${LUA_NOW}local until_ms = now + tonumber(ARGV[2])
local expires = redis.call('ZSCORE', KEYS[1], ARGV[1])
if expires and tonumber(expires) > until_ms then
  redis.call('ZADD', KEYS[1], 'XX', until_ms, ARGV[1])
end
return 1
`,
);

/** Reserves and releases room in the shared byte budget. */
export interface ByteBudget {
  /**
   * Reserves `size` for the entry `key` until it expires.
   * @throws S2SPError `store_full` when it does not fit
   */
  reserve(key: string, size: number, ttlMs: number): Promise<void>;
  /** Gives a reservation back; a missing one is ignored. */
  release(key: string, size: number): Promise<void>;
  /**
   * Keeps a reservation for `ms` from now at most, then drops it (never later than it would have
   * been); a missing one is ignored.
   */
  hold(key: string, size: number, ms: number): Promise<void>;
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
      throw storeFullError(used, maxBytes, size);
    },
    async release(key, size) {
      await call(runScript(connection, BUDGET_RELEASE, keys, [`${key}:${size}`, String(size)]));
    },
    async hold(key, size, ms) {
      await call(runScript(connection, BUDGET_HOLD, keys, [`${key}:${size}`, String(ms)]));
    },
  };
}
