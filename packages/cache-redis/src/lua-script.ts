/**
 * Running Lua scripts. Each script runs in Redis as one indivisible step: single use, TTL and
 * budget bookkeeping never depend on a read-then-write from the client. Scripts are sent with
 * EVALSHA and loaded with EVAL when a node answers NOSCRIPT (a restart, `SCRIPT FLUSH`, or a
 * cluster node that has not seen them yet).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { RedisArgument, RedisConnection, SendOptions } from './redis-connection.js';
import { isNoScriptError } from './store-errors.js';

/** A script and its SHA-1, as EVALSHA wants it. */
export interface LuaScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

/** Wraps Lua source as a {@link LuaScript}. */
export function luaScript(name: string, source: string): LuaScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Lua prelude for scripts that read `TIME` and then write. Redis 3.2-4 replicate scripts
 * verbatim and refuse writes after TIME unless effects replication is switched on; Redis 5+
 * always replicates effects and keeps this as a no-op.
 */
export const LUA_EFFECTS = 'if redis.replicate_commands then redis.replicate_commands() end\n';

/** Lua that sets `now` to the current time of the Redis server, in milliseconds. */
export const LUA_NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Runs a script with EVALSHA, falling back to EVAL (which also caches it) on NOSCRIPT. Safe to
 * retry: a NOSCRIPT answer means the script did not run at all.
 *
 * @param connection - where to send it
 * @param lua - the script
 * @param keys - its KEYS; the first one routes the call in a cluster
 * @param args - its ARGV (text or bytes)
 * @param options - `buffers: true` to get bulk strings back as `Buffer`s
 */
export async function runScript(
  connection: RedisConnection,
  lua: LuaScript,
  keys: readonly string[],
  args: readonly RedisArgument[],
  options?: SendOptions,
): Promise<unknown> {
  const tail = [String(keys.length), ...keys, ...args];
  try {
    return await connection.send(['EVALSHA', lua.sha, ...tail], keys[0], options);
  } catch (error) {
    if (!isNoScriptError(error)) throw error;
    return connection.send(['EVAL', lua.source, ...tail], keys[0], options);
  }
}
