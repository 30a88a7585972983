/**
 * The Lua scripts that make the Redis store atomic. Each runs in Redis as one indivisible step:
 * single use, TTL and budget bookkeeping never depend on a read-then-write from the client.
 * Scripts are sent with EVALSHA and loaded with EVAL when a node answers NOSCRIPT (a restart,
 * `SCRIPT FLUSH`, or a cluster node that has not seen them yet).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { RedisConnection } from './redis-connection.js';
import { isNoScriptError } from './store-errors.js';

/** A script and its SHA-1, as EVALSHA wants it. */
export interface LuaScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

function script(name: string, source: string): LuaScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

// Redis 3.2-4 replicate scripts verbatim and refuse writes after TIME unless effects replication
// is switched on; Redis 5+ always replicates effects and keeps this as a no-op.
const EFFECTS = 'if redis.replicate_commands then redis.replicate_commands() end\n';

// The current time of the Redis server in milliseconds.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Writes one chunk of a table's pages into the entry hash and (re)sets its TTL in the same step,
 * so even a half-written entry (the writer crashed) expires by itself.
 *
 * KEYS[1] the entry hash. ARGV: [1] TTL in ms, [2] flags `<first><last>` ("1"/"0"), [3] the index
 * of the first page of this chunk, [4] columns JSON, [5] row count, [6] size, [7] rows per page
 * (4-7 only on the last chunk), [8…] the pages.
 *
 * The first chunk removes any older entry under the key, only if there is one: Redis refuses a
 * script's writes for OOM only while the script has not written anything yet, so an
 * unconditional UNLINK first would let a full Redis accept the whole chunk. (Keys come from fresh
 * tokens; replacing an entry does not happen in practice.) The last chunk checks that every page
 * arrived (a chunk refused in between, say by OOM, leaves a gap) before writing the metadata
 * that makes the entry visible; on a gap it removes the entry and fails.
 */
export const PUT_CHUNK: LuaScript = script(
  'put-chunk',
  `local key = KEYS[1]
if string.sub(ARGV[2], 1, 1) == '1' and redis.call('EXISTS', key) == 1 then
  redis.call('UNLINK', key)
end
local start = tonumber(ARGV[3])
local kv = {}
for i = 8, #ARGV do
  kv[#kv + 1] = tostring(start + i - 8)
  kv[#kv + 1] = ARGV[i]
  if #kv >= 2000 then
    redis.call('HSET', key, unpack(kv))
    kv = {}
  end
end
if #kv > 0 then redis.call('HSET', key, unpack(kv)) end
if string.sub(ARGV[2], 2, 2) == '1' then
  if redis.call('HLEN', key) ~= math.ceil(tonumber(ARGV[5]) / tonumber(ARGV[7])) then
    redis.call('UNLINK', key)
    return redis.error_reply('S2SP_INCOMPLETE a chunk of this entry is missing')
  end
  redis.call('HSET', key, '#c', ARGV[4], '#n', ARGV[5], '#b', ARGV[6], '#p', ARGV[7])
end
redis.call('PEXPIRE', key, ARGV[1])
return 1
`,
);

/** What {@link TAKE} answers when it ran after its deadline (and changed nothing). */
export const TAKE_LATE = -1;

/**
 * Reads the requested rows of an entry and deletes it, as one step: of any number of concurrent
 * takes on any number of replicas, exactly one sees the entry.
 *
 * KEYS[1] the entry hash. ARGV: [1] deadline in Redis milliseconds (0: none), [2] "all" or
 * "some", [3…] the row ids (with "some").
 *
 * The deadline is what keeps a failed take from consuming its entry later. The client gives up
 * after its timeout and reports "unavailable"; if the command still reaches Redis afterwards (a
 * frozen server resuming, an offline queue flushed on reconnect), it finds its deadline passed and
 * leaves the entry alone, so the caller's retry gets it.
 *
 * Answers nil for a missing entry (unknown, expired, taken, or still being written), -1 when
 * late, else `[columns JSON, row count, size, rows per page, …]` followed, with "all", by every
 * page in order (the caller splits them at "\n") and, with "some", by one row per requested id
 * (false when the table has no such id). Only the pages holding requested rows are read, with
 * HMGET in slices (Lua's unpack has a stack limit); the hash is removed with UNLINK, which frees
 * a large table in a background thread.
 */
export const TAKE: LuaScript = script(
  'take',
  `${EFFECTS}local key = KEYS[1]
local deadline = tonumber(ARGV[1])
if deadline > 0 then
  ${NOW}  if now > deadline then return ${TAKE_LATE} end
end
local meta = redis.call('HMGET', key, '#c', '#n', '#b', '#p')
if not meta[1] then return nil end
local n = tonumber(meta[2])
local per = tonumber(meta[4])
local out = {meta[1], meta[2], meta[3], meta[4]}
local function page_of(arg)
  local id = tonumber(arg)
  if id and id >= 0 and id < n and id == math.floor(id) then return math.floor(id / per), id % per + 1 end
  return nil
end
if ARGV[2] == 'all' then
  local pages = math.ceil(n / per)
  for first = 0, pages - 1, 500 do
    local fields = {}
    for i = first, math.min(first + 499, pages - 1) do fields[#fields + 1] = tostring(i) end
    local values = redis.call('HMGET', key, unpack(fields))
    for j = 1, #values do out[#out + 1] = values[j] end
  end
else
  local order, seen = {}, {}
  for i = 3, #ARGV do
    local page = page_of(ARGV[i])
    if page and not seen[page] then
      seen[page] = true
      order[#order + 1] = page
    end
  end
  -- Per page read: its text and where each of its rows starts. Only requested rows are copied.
  local texts, starts = {}, {}
  for first = 1, #order, 500 do
    local fields = {}
    for i = first, math.min(first + 499, #order) do fields[#fields + 1] = tostring(order[i]) end
    local values = redis.call('HMGET', key, unpack(fields))
    for j = 1, #values do
      local text = values[j]
      if text then
        local page, at, pos = order[first + j - 1], {1}, 1
        while true do
          local nl = string.find(text, '\\n', pos, true)
          if not nl then break end
          pos = nl + 1
          at[#at + 1] = pos
        end
        texts[page], starts[page] = text, at
      end
    end
  end
  for i = 3, #ARGV do
    local page, index = page_of(ARGV[i])
    local row = false
    local at = page and starts[page]
    if at and at[index] then
      local after = at[index + 1]
      row = string.sub(texts[page], at[index], after and after - 2 or -1)
    end
    out[#out + 1] = row
  end
end
redis.call('UNLINK', key)
return out
`,
);

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
export const BUDGET_RESERVE: LuaScript = script(
  'budget-reserve',
  `${EFFECTS}${NOW}${DROP_EXPIRED}local used = tonumber(redis.call('GET', KEYS[2]) or '0')
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
export const BUDGET_RELEASE: LuaScript = script(
  'budget-release',
  `if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then redis.call('DECRBY', KEYS[2], ARGV[2]) end
return 1
`,
);

/**
 * Runs a script with EVALSHA, falling back to EVAL (which also caches it) on NOSCRIPT. Safe to
 * retry: a NOSCRIPT answer means the script did not run at all.
 *
 * @param connection - where to send it
 * @param lua - the script
 * @param keys - its KEYS; the first one routes the call in a cluster
 * @param args - its ARGV
 */
export async function runScript(
  connection: RedisConnection,
  lua: LuaScript,
  keys: readonly string[],
  args: readonly string[],
): Promise<unknown> {
  const tail = [String(keys.length), ...keys, ...args];
  try {
    return await connection.send(['EVALSHA', lua.sha, ...tail], keys[0]);
  } catch (error) {
    if (!isNoScriptError(error)) throw error;
    return connection.send(['EVAL', lua.source, ...tail], keys[0]);
  }
}
