/**
 * Writing an entry: its blocks in chunks of a few MiB (one script call each), pipelined, with the
 * metadata that makes it visible written last.
 *
 * @module
 */

import type { StoredTable } from '@s2sp/core/store';
import { PUT_BLOCKS } from './entry-scripts.js';
import { runScript } from './lua-script.js';
import type { RedisConnection } from './redis-connection.js';
import {
  BLOCK_BYTES,
  type BlockChunk,
  chunkBlocks,
  type EncodedEntry,
  encodeEntry,
} from './row-blocks.js';
import { withTimeout } from './store-errors.js';

/** A put gets one command timeout per this many characters. */
const CHARS_PER_TIMEOUT = 16 * 1024 * 1024;
/** TTL of a half-written entry (it is invisible until its last chunk sets the real TTL). */
const MIN_HOLD_MS = 60_000;

/** What {@link writeEntry} needs to know. */
export interface WriteEntryOptions {
  readonly connection: RedisConnection;
  /** The entry's main key (see key-layout). */
  readonly redisKey: string;
  readonly table: StoredTable;
  /** The table's size in JSON characters (what the budget counts). */
  readonly size: number;
  readonly ttlMs: number;
  readonly commandTimeoutMs: number;
  /** Where the joined rows are written (the store's pool of reusable buffers). */
  readonly allocate?: (size: number) => Uint8Array;
}

/**
 * Writes a table as a new entry. On failure the half-written keys are removed (best effort; they
 * are invisible anyway and expire after their hold time).
 *
 * @returns the table's encoding, which the blocks were cut from (for the near cache): nothing
 *   sent reads it once this resolves, as Redis has answered every command. After a failure a
 *   command given up on may still be sent, so its bytes are never reused then.
 */
export async function writeEntry(
  options: WriteEntryOptions,
): Promise<Pick<EncodedEntry, 'joined' | 'ends'>> {
  const { connection, redisKey, table, size, ttlMs, commandTimeoutMs, allocate } = options;
  const { blocks, offsets, byteLength, joined, ends } = encodeEntry(table, allocate);
  const chunks = chunkBlocks(blocks);
  const putTimeoutMs = commandTimeoutMs * Math.max(1, Math.ceil(size / CHARS_PER_TIMEOUT));
  const giveUpAt = Date.now() + putTimeoutMs;
  const holdMs = String(Math.max(ttlMs, MIN_HOLD_MS));
  const send = (chunk: BlockChunk, first: boolean, last: boolean) =>
    withTimeout(
      runScript(
        connection,
        PUT_BLOCKS,
        [redisKey],
        [
          last ? String(ttlMs) : holdMs,
          `${first ? 1 : 0}${last ? 1 : 0}`,
          String(chunk.start),
          ...(last
            ? [
                JSON.stringify(table.columns),
                String(table.rows.length),
                String(size),
                String(blocks.length),
                String(byteLength),
                String(BLOCK_BYTES),
                offsets,
              ]
            : []),
          ...chunk.blocks,
        ],
      ),
      giveUpAt - Date.now(),
      putTimeoutMs,
    );
  const [head, ...rest] = chunks;
  const tail = rest.pop();
  const encoding = { joined, ends };
  if (!head) return encoding;
  try {
    if (!tail) {
      await send(head, true, true);
      return encoding;
    }
    // The first chunk clears the key before anything else lands; the middle ones go out
    // together (pipelined on one connection, in any order); the last one, which checks that
    // every block arrived and makes the entry visible, goes only once they all succeeded.
    await send(head, true, false);
    const middle = await Promise.allSettled(rest.map((chunk) => send(chunk, false, false)));
    const failed = middle.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    await send(tail, false, true);
    return encoding;
  } catch (error) {
    const keys = [redisKey, `${redisKey}:o`, ...blocks.map((_, i) => `${redisKey}:${i}`)];
    connection.send(['UNLINK', ...keys], redisKey).catch(() => {});
    throw error;
  }
}
