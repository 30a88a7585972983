/**
 * The Lua scripts that write and take entries (layout: see key-layout). Each runs as one
 * indivisible step in Redis; every key a script touches carries the entry's hash tag, so in a
 * cluster it runs on the one node that owns the entry.
 *
 * @module
 */
import { LUA_EFFECTS, LUA_NOW, luaScript } from './lua-script.js';

// Removes keys of the entry in `key` (its blocks from `first`, its offsets, its metadata).
// UNLINK frees large values in a background thread; slices keep unpack under Lua's stack limit.
const LUA_DROP = `local function drop(key, first, blocks, meta)
  local keys = {key .. ':o'}
  if meta then keys[2] = key end
  for i = first, blocks - 1 do
    keys[#keys + 1] = key .. ':' .. i
    if #keys >= 500 then
      redis.call('UNLINK', unpack(keys))
      keys = {}
    end
  end
  if #keys > 0 then redis.call('UNLINK', unpack(keys)) end
end
`;

/**
 * Writes one chunk of a table's blocks, each with a TTL set in the same step, so even a
 * half-written entry (the writer crashed) expires by itself.
 *
 * KEYS[1] the entry's main key. ARGV: [1] TTL in ms of what this call writes, [2] flags
 * `<first><last>` ("1"/"0"; on the last chunk [1] is the entry's TTL), [3] the index of this
 * chunk's first block, and on the last chunk [4] columns JSON, [5] row count, [6] size, [7] block
 * count, [8] joined bytes, [9] block size, [10] the offsets; then the blocks.
 *
 * The first chunk removes an older entry under the key only if there is one: Redis refuses a
 * script's writes for OOM only while the script has not written anything yet, so an
 * unconditional UNLINK first would let a full Redis accept the whole chunk. (Keys come from fresh
 * tokens; replacing an entry does not happen in practice.) The last chunk checks that every block
 * arrived (a chunk refused in between, say by OOM, leaves a gap), gives every block the entry's
 * TTL and then writes the metadata that makes the entry visible; on a gap it removes the entry
 * and fails.
 */
export const PUT_BLOCKS = luaScript(
  'put-blocks',
  `${LUA_DROP}local key = KEYS[1]
local first, last = string.sub(ARGV[2], 1, 1) == '1', string.sub(ARGV[2], 2, 2) == '1'
if first and redis.call('EXISTS', key) == 1 then
  drop(key, 0, tonumber(redis.call('HGET', key, '#k') or '0'), true)
end
local start = tonumber(ARGV[3])
local data = last and 11 or 4
for i = data, #ARGV do
  redis.call('SET', key .. ':' .. (start + i - data), ARGV[i], 'PX', ARGV[1])
end
if last then
  local blocks = tonumber(ARGV[7])
  local keys, present = {}, 0
  for i = 0, blocks - 1 do
    keys[#keys + 1] = key .. ':' .. i
    if #keys >= 500 or i == blocks - 1 then
      present = present + redis.call('EXISTS', unpack(keys))
      keys = {}
    end
  end
  if present ~= blocks then
    drop(key, 0, blocks, true)
    return redis.error_reply('S2SP_INCOMPLETE a chunk of this entry is missing')
  end
  for i = 0, start - 1 do redis.call('PEXPIRE', key .. ':' .. i, ARGV[1]) end
  redis.call('SET', key .. ':o', ARGV[10], 'PX', ARGV[1])
  redis.call('HSET', key, '#c', ARGV[4], '#n', ARGV[5], '#b', ARGV[6], '#k', ARGV[7], '#j', ARGV[8], '#s', ARGV[9])
  redis.call('PEXPIRE', key, ARGV[1])
end
return 1
`,
);

/** Most bytes of row offsets one GETRANGE of {@link TAKE} reads for several ids (16k rows). */
const OFFSET_WINDOW = 65_536;
/**
 * Largest gap, in bytes of offsets, between the ids one GETRANGE of {@link TAKE} reads together:
 * ids far apart (10 ids spread over 100k rows) are read 8 bytes each, not with the 40 KB between
 * them, so the work follows the ids asked for, not the table's size.
 */
const OFFSET_GAP = 512;

/** What {@link TAKE} answers when it ran after its deadline (and changed nothing). */
export const TAKE_LATE = -1;

/**
 * Answer of a {@link TAKE} asking for more row ids than the table has rows: nothing was changed,
 * and the script did no work per id (150 000 ids held Redis for 130 ms).
 */
export const TAKE_TOO_MANY = -2;
/**
 * Most blocks an entry may have for a {@link TAKE} of rows to let it go itself (offsets removed,
 * blocks expiring); a larger entry's are left to {@link EXPIRE_BLOCKS}, sent by the taker after the
 * answer. Each block costs the script ~2.5 µs of Redis time on the answer's path; the command of
 * its own costs the taker ~50 µs of CPU off that path, which delays the next request by ~20 µs on
 * a busy 2-core machine: about even at 8 (10 rows of 10,000, 12 blocks: 700 against 717 µs).
 */
export const TAKE_EXPIRES_BLOCKS = 8;

/** First element of a {@link TAKE} answer whose rows follow in it. */
export const TAKE_INLINE = 1;
/** First element of a {@link TAKE} answer that claimed the entry: its blocks are read next. */
export const TAKE_CLAIMED = 0;

/**
 * Takes an entry: of any number of concurrent takes on any number of replicas, exactly one sees
 * it, because this script reads the metadata and removes it in one step.
 *
 * KEYS[1] the entry's main key. ARGV: [1] deadline in Redis milliseconds (0: none), [2] "all" or
 * "some" (for a repeatable take, PROTOCOL §7.10: followed by " <grace ms> <retry key>"), [3] how
 * long a claimed entry's blocks stay for the reader, in ms, optionally followed by " <n>": the
 * caller read the offsets and the first n blocks just before this script, in the same write, [4…]
 * the row ids (with "some"), or [4] optionally how many rows the caller will select itself (with
 * "all"). More ids than the table has rows: `[TAKE_TOO_MANY, row count]`, nothing changed.
 *
 * The deadline is what keeps a failed take from consuming its entry later. The client gives up
 * after its timeout and reports "unavailable"; if the command still reaches Redis afterwards (a
 * frozen server resuming, an offline queue flushed on reconnect), it finds its deadline passed and
 * leaves the entry alone, so the caller's retry gets it.
 *
 * Answers nil for a missing entry (unknown, expired, taken, or still being written), -1 when late,
 * else `[mode, columns JSON, row count, size, block count, joined bytes, block size, …]`:
 * - "some": mode 1, then one row per requested id (false when the table has no such id). Each row
 *   is read with GETRANGE from the one or two blocks that hold it, its offsets with one GETRANGE
 *   shared by the ids that lie close together: the work follows the rows asked for, not the
 *   table. Then the metadata is removed, and with an entry of at most
 *   {@link TAKE_EXPIRES_BLOCKS} blocks its offsets too, its blocks set to expire at once; a larger
 *   entry's the taker expires after the answer.
 * - "all": mode 0 (claimed). Only the metadata is removed — the step that makes the take
 *   single-use, whatever the table's size. The caller reads the blocks with plain GETs (binary,
 *   outside any script: copying a block into Lua and out again costs Redis more than a GET does,
 *   and a large table never blocks it), the offsets and first ones in the same write, just before
 *   this script. A table it has read whole so expires within a millisecond, as a take of some rows
 *   does (nothing is left for the caller to remove); a larger one keeps its blocks and offsets for
 *   the hold time, and the caller removes them when it has read them.
 *
 * A repeatable take marks the entry instead of removing it: field `#g` holds its retry key, and
 * every key of the entry expires after the grace window, or with the entry's TTL if that comes
 * first (blocks of a claimed table the claim hold later, so a repeat begun in the window can read
 * them). The mark is set in this same step, so
 * the first take still wins alone; a marked entry answers only a take with the same retry key,
 * as a repeat that changes nothing, and nil to any other.
 */
export const TAKE = luaScript(
  'take-blocks',
  `${LUA_EFFECTS}local key = KEYS[1]
local deadline = tonumber(ARGV[1])
if deadline > 0 then
  ${LUA_NOW}  if now > deadline then return ${TAKE_LATE} end
end
local meta = redis.call('HMGET', key, '#c', '#n', '#b', '#k', '#j', '#s', '#g')
-- No block count: not an entry of this layout (0.1.x wrote pages); leave it to its TTL.
if not meta[1] or not meta[4] then return nil end
local mode, grace, retry = ARGV[2], nil, nil
if #mode > 4 then mode, grace, retry = string.match(mode, '^(%a+) (%d+) (.+)$') end
-- Taken already by a repeatable take: only its own key may repeat it.
if meta[7] and meta[7] ~= retry then return nil end
local n, blocks, size = tonumber(meta[2]), tonumber(meta[4]), tonumber(meta[6])
-- How many rows the caller wants: the ids given ("some"), or a count passed with "all" by a
-- caller that selects many rows itself. More than the table has: refused, nothing changed.
local asked = #ARGV - 3
if mode == 'all' then asked = tonumber(ARGV[4] or '0') end
if asked > n then return {${TAKE_TOO_MANY}, meta[2]} end
local claim = mode == 'all'
if retry and not meta[7] then
  -- The window ends with the entry's TTL at the latest: a retry never outlives the resource_url.
  local left = redis.call('PTTL', key)
  if left > 0 and left < tonumber(grace) then grace = left end
  redis.call('HSET', key, '#g', retry)
  redis.call('PEXPIRE', key, grace)
  local hold = tonumber(grace)
  if claim then hold = hold + tonumber(string.match(ARGV[3], '^%d+')) end
  redis.call('PEXPIRE', key .. ':o', hold)
  for i = 0, blocks - 1 do redis.call('PEXPIRE', key .. ':' .. i, hold) end
end
local out = {${TAKE_INLINE}, meta[1], meta[2], meta[3], meta[4], meta[5], meta[6]}
if claim then
  out[1] = ${TAKE_CLAIMED}
  if retry then return out end
  redis.call('UNLINK', key)
  local hold, read = string.match(ARGV[3], '^(%d+) ?(%d*)$')
  if read ~= '' and blocks <= tonumber(read) then hold = 1 end
  redis.call('PEXPIRE', key .. ':o', hold)
  for i = 0, blocks - 1 do redis.call('PEXPIRE', key .. ':' .. i, hold) end
  return out
end
do
  local function u32(s, at)
    local a, b, c, d = string.byte(s, at, at + 3)
    return a + b * 256 + c * 65536 + d * 16777216
  end
  local ids = {}
  for i = 4, #ARGV do
    local id = tonumber(ARGV[i])
    if id and id >= 0 and id < n and id == math.floor(id) then ids[i - 3] = id else ids[i - 3] = false end
  end
  -- Each redis.call costs a few µs: the offsets of ids that lie close together (in the order
  -- given, ascending in practice; at most ${OFFSET_GAP} bytes apart) are read with one GETRANGE of
  -- at most ${OFFSET_WINDOW} bytes.
  local offsets, win_lo, win = key .. ':o', 0, ''
  local function offset_bytes(k, lo, hi)
    if lo < win_lo or hi >= win_lo + #win then
      local top = hi
      for j = k + 1, #ids do
        local next_id = ids[j]
        if next_id then
          local next_hi = next_id * 4 + 3
          if next_hi < lo or next_hi - lo >= ${OFFSET_WINDOW} or next_hi - top > ${OFFSET_GAP} then break end
          if next_hi > top then top = next_hi end
        end
      end
      win_lo, win = lo, redis.call('GETRANGE', offsets, lo, top)
    end
    return lo - win_lo + 1
  end
  for k = 1, #ids do
    local id = ids[k]
    local row = false
    if id then
      local from, to
      if id == 0 then
        local at = offset_bytes(k, 0, 3)
        from, to = 0, u32(win, at)
      else
        local at = offset_bytes(k, (id - 1) * 4, id * 4 + 3)
        from, to = u32(win, at) + 1, u32(win, at + 4)
      end
      -- Bytes [from, to) of the joined rows, from the one or more blocks that hold them. Most
      -- rows lie in one block: read straight into the answer, not through a concatenation.
      local first = math.floor(from / size)
      if to > from and math.floor((to - 1) / size) == first then
        row = redis.call('GETRANGE', key .. ':' .. first, from - first * size, to - 1 - first * size)
      else
        local parts = {}
        while from < to do
          local block = math.floor(from / size)
          local stop = math.min(to, (block + 1) * size)
          parts[#parts + 1] = redis.call('GETRANGE', key .. ':' .. block, from - block * size, stop - 1 - block * size)
          from = stop
        end
        row = table.concat(parts)
      end
    end
    out[#out + 1] = row
  end
end
-- Removing the metadata is what makes the take single-use. An entry of a few blocks goes in this
-- same step: offsets removed, blocks set to expire within a millisecond (Redis's active expiry
-- frees them; freeing a 1 MiB string costs ~85 µs, synchronously even with UNLINK). That is ~2 µs
-- of Redis time a block, where a command of its own after the answer cost the taker a write and a
-- reply to read and Redis a second script (~55 µs of the server's CPU a take at 1,000 rows). A
-- larger table's offsets and blocks are left to the taker (EXPIRE_BLOCKS), so their many expiries
-- are no part of the answer's latency. A repeatable take keeps everything for its grace window.
if not retry then
  if blocks <= ${TAKE_EXPIRES_BLOCKS} then
    redis.call('UNLINK', key, key .. ':o')
    for i = 0, blocks - 1 do redis.call('PEXPIRE', key .. ':' .. i, 1) end
  else
    redis.call('UNLINK', key)
  end
end
return out
`,
);

/**
 * Makes the blocks of a taken entry expire within a millisecond and removes its offsets. Sent by
 * the taker after it has its answer, so neither the expiries nor freeing a large table (about
 * 85 µs per 1 MiB block, synchronous in Redis even with UNLINK) are part of a redemption's
 * latency: Redis's active expiry frees the blocks in small steps.
 *
 * KEYS[1] the entry's main key. ARGV: [1] block count.
 */
export const EXPIRE_BLOCKS = luaScript(
  'expire-blocks',
  `local key = KEYS[1]
redis.call('UNLINK', key .. ':o')
for i = 0, tonumber(ARGV[1]) - 1 do redis.call('PEXPIRE', key .. ':' .. i, 1) end
return 1
`,
);
