/**
 * Taking an entry: one small script decides who gets it (see TAKE); for a whole table the winner
 * reads the blocks with plain binary GETs, several in flight (the first ones sent with the
 * script), and removes them.
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import { chunksOf, type TakenRows, type TakeRetry, tooManyRowIds } from '@s2sp/core/store';
import {
  EXPIRE_BLOCKS,
  TAKE,
  TAKE_CLAIMED,
  TAKE_EXPIRES_BLOCKS,
  TAKE_LATE,
  TAKE_TOO_MANY,
} from './entry-scripts.js';
import { blockKey, offsetsKey } from './key-layout.js';
import { runScript } from './lua-script.js';
import type { RedisClock } from './redis-clock.js';
import type { RedisClientKind, RedisConnection, SendOptions } from './redis-connection.js';
import { RedisLateError, toStoreError, withTimeout } from './store-errors.js';

/** How long a claimed entry's blocks stay for their reader: ample for reading them, bounded if
 * the reader dies. */
export const CLAIM_HOLD_MS = 5 * 60_000;
// Every command of a take may reach Redis after the store gave up: the take script checks its
// deadline, and reads and expiries of a taken entry change nothing another take could see.
const LATE_IS_HARMLESS: SendOptions = { lateIsHarmless: true };
const BUFFERS_LATE_IS_HARMLESS: SendOptions = { buffers: true, lateIsHarmless: true };

/** Clients that send one node's commands over one connection, in the order they are given. */
const IN_ORDER: ReadonlySet<RedisClientKind> = new Set(['node-redis', 'ioredis']);

/** Block reads in flight at once. */
export const READ_AHEAD = 8;

/** What {@link takeEntry} needs. */
export interface TakeEntryOptions {
  readonly connection: RedisConnection;
  readonly clock: RedisClock;
  /** The entry's main key (see key-layout). */
  readonly redisKey: string;
  readonly rowIds: readonly number[] | undefined;
  /**
   * Without `rowIds`: how many rows the caller will cut from the whole table itself, so the
   * script refuses (untouched) a table with fewer rows.
   */
  readonly selecting?: number;
  readonly commandTimeoutMs: number;
  /**
   * A repeatable take (PROTOCOL §7.10): the entry is marked instead of removed, and its blocks
   * are left to the grace window's expiry.
   */
  readonly retry?: TakeRetry;
}

/** A taken entry and its size (for the budget). */
export interface Taken {
  readonly result: TakenRows;
  readonly bytes: number;
}

/** An entry or a reply that is not what this store writes: another program shares the prefix. */
export function corrupt(what: string): S2SPError {
  return new S2SPError(
    'internal',
    `The S2SP cache found ${what} in Redis. Make sure nothing else writes under the store's keyPrefix.`,
  );
}

/** A reply value as text (Buffers are UTF-8). */
export function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  // A view, not a copy (`Buffer.from(value)` would copy): a take's reply has several of these.
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
  if (typeof value === 'number') return String(value);
  return undefined; // nil (null) or, with RESP3, Lua false
}

function bytes(value: unknown): Buffer | undefined {
  if (Buffer.isBuffer(value)) return value;
  // A client that ignored the request for Buffers (a custom wrapper): text is still UTF-8 JSON.
  if (typeof value === 'string') return Buffer.from(value);
  return undefined;
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

interface Meta {
  readonly columns: string[];
  readonly tableRows: number;
  readonly size: number;
  readonly blocks: number;
  readonly joinedBytes: number;
}

function parseMeta(reply: unknown[]): Meta {
  const [tableRows, size, blocks, joinedBytes] = reply.slice(2, 6).map((v) => Number(text(v)));
  if (![tableRows, size, blocks, joinedBytes].every((v) => Number.isSafeInteger(v)))
    throw corrupt('an entry with unreadable metadata');
  return {
    columns: parseColumns(reply[1]),
    tableRows: tableRows as number,
    size: size as number,
    blocks: blocks as number,
    joinedBytes: joinedBytes as number,
  };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The row ends of an offsets value (4 bytes little endian per row). */
function endsOf(value: unknown, meta: Meta): Uint32Array {
  const buffer = bytes(value);
  if (!buffer || buffer.byteLength !== meta.tableRows * 4)
    throw corrupt('an entry whose row offsets do not add up');
  if (!LITTLE_ENDIAN) {
    const ends = new Uint32Array(meta.tableRows);
    for (let i = 0; i < ends.length; i++) ends[i] = buffer.readUInt32LE(i * 4);
    return ends;
  }
  // A view when the reply's bytes are aligned, else one copy (4 bytes per row).
  return buffer.byteOffset % 4 === 0
    ? new Uint32Array(buffer.buffer, buffer.byteOffset, meta.tableRows)
    : new Uint32Array(Uint8Array.from(buffer).buffer);
}

/**
 * Reads a claimed entry's blocks in order, {@link READ_AHEAD} in flight, each within the command
 * timeout, as the consumer asks for them; with `expireWhenDone`, removes them when done, failed
 * or abandoned (once started: blocks of a take whose chunks are never read go with their claim's
 * short TTL).
 */
async function* readClaimed(
  options: TakeEntryOptions,
  meta: Meta,
  first: Promise<unknown>[],
  expireWhenDone: boolean,
): AsyncGenerator<Uint8Array> {
  const { redisKey } = options;
  const keys = Array.from({ length: meta.blocks }, (_, i) => blockKey(redisKey, i));
  const inFlight = first;
  let next = first.length;
  let total = 0;
  try {
    for (let i = 0; i < keys.length; i++) {
      const block = bytes(await inFlight.shift());
      if (!block) throw corrupt('an entry with a missing block');
      if (next < keys.length) inFlight.push(getBlock(options, keys[next++] as string));
      total += block.byteLength;
      yield block;
    }
    if (total !== meta.joinedBytes) throw corrupt('an entry whose blocks do not add up');
  } catch (error) {
    // The reader sees what a failed take throws (`unavailable` with advice), never a driver error.
    throw toStoreError(error, 'take');
  } finally {
    for (const pending of inFlight) pending.catch(() => {});
    if (expireWhenDone) expireBlocks(options, meta.blocks);
  }
}

/**
 * Expires a taken entry's blocks and its offsets without waiting (see EXPIRE_BLOCKS): the answer
 * is already on its way, and a failure leaves them to their TTL.
 */
function expireBlocks(options: TakeEntryOptions, blocks: number): void {
  withTimeout(
    runScript(
      options.connection,
      EXPIRE_BLOCKS,
      [options.redisKey],
      [String(blocks)],
      LATE_IS_HARMLESS,
    ),
    options.commandTimeoutMs,
  ).catch(() => {});
}

/**
 * The offsets and the first {@link READ_AHEAD} blocks of an entry, in one MGET (one command, one
 * timer; keys past the last block answer nil), each as a promise of its own.
 */
function readAhead(options: TakeEntryOptions): {
  offsets: Promise<unknown>;
  blocks: Promise<unknown>[];
} {
  const { redisKey } = options;
  const keys = [offsetsKey(redisKey)];
  for (let i = 0; i < READ_AHEAD; i++) keys.push(blockKey(redisKey, i));
  const values = getValues(options, ['MGET', ...keys]);
  const at = (i: number) => {
    const value = values.then((all) => (Array.isArray(all) ? all[i] : undefined));
    value.catch(() => {}); // read (and its error reported) in order, by the take and readClaimed
    return value;
  };
  return { offsets: at(0), blocks: keys.slice(1).map((_, i) => at(i + 1)) };
}

function getBlock(options: TakeEntryOptions, key: string): Promise<unknown> {
  return getValues(options, ['GET', key]);
}

function getValues(options: TakeEntryOptions, command: string[]): Promise<unknown> {
  const pending = withTimeout(
    options.connection.send(command, options.redisKey, BUFFERS_LATE_IS_HARMLESS),
    options.commandTimeoutMs,
  );
  pending.catch(() => {}); // read (and its error reported) in order, by readClaimed
  return pending;
}

/**
 * The rows a take script answered, handed over as the reply's own bytes with a comma piece of its
 * own between each two (as the memory store hands scattered rows over; the taker may turn the
 * commas into newlines): the selected rows are not copied here, the response's writer copies
 * them once.
 */
function rowPieces(rows: readonly Buffer[]): {
  pieces: Uint8Array[];
  ends: Uint32Array;
  byteLength: number;
} {
  const commas = Buffer.alloc(Math.max(0, rows.length - 1), ',');
  const ends = new Uint32Array(rows.length);
  const pieces: Uint8Array[] = [];
  let byteLength = 0;
  rows.forEach((row, i) => {
    if (i > 0) pieces.push(commas.subarray(i - 1, i));
    byteLength += (i > 0 ? 1 : 0) + row.byteLength;
    pieces.push(row);
    ends[i] = byteLength;
  });
  return { pieces, ends, byteLength };
}

/**
 * Runs the take script (see TAKE) for `rowIds` (all rows when omitted), with the deadline that
 * keeps a late one from consuming the entry.
 *
 * @param readFirst - the offsets and first blocks were asked for just before, on the same
 *   connection: a table they hold whole may expire as soon as it is claimed
 * @returns the script's reply, checked to be an entry's, or `undefined` when there is no entry
 * @throws RedisLateError when the script ran after its deadline (nothing was changed)
 */
async function runTake(
  options: TakeEntryOptions,
  readFirst: boolean,
): Promise<unknown[] | undefined> {
  const { connection, clock, redisKey, rowIds, commandTimeoutMs, selecting } = options;
  const giveUpAt = Date.now() + commandTimeoutMs;
  const deadline =
    clock.knownDeadline(giveUpAt, commandTimeoutMs) ??
    (await withTimeout(clock.deadline(giveUpAt, commandTimeoutMs), commandTimeoutMs));
  const which = rowIds ? 'some' : 'all';
  const args = [
    String(deadline),
    options.retry ? `${which} ${options.retry.graceMs} ${options.retry.key}` : which,
    readFirst ? `${CLAIM_HOLD_MS} ${READ_AHEAD}` : String(CLAIM_HOLD_MS),
    ...(rowIds ?? []).map((id) => String(id)),
    ...(selecting === undefined ? [] : [String(selecting)]),
  ];
  const reply = await withTimeout(
    runScript(connection, TAKE, [redisKey], args, BUFFERS_LATE_IS_HARMLESS),
    giveUpAt - Date.now(),
    commandTimeoutMs,
  );
  if (reply === TAKE_LATE) throw new RedisLateError();
  if (Array.isArray(reply) && Number(reply[0]) === TAKE_TOO_MANY)
    throw tooManyRowIds(rowIds?.length ?? 0, Number(String(reply[1])));
  if (reply === null || reply === undefined || reply === false) return undefined;
  if (!Array.isArray(reply) || reply.length < 7) throw corrupt('an unexpected reply to a take');
  return reply;
}

/** What {@link claimEntry} learns of the entry it claimed: what the budget gives back. */
export interface Claimed {
  readonly tableRows: number;
  /** The entry's size in JSON characters, as it was charged. */
  readonly bytes: number;
}

/**
 * Claims the entry at `redisKey` without reading any of it: the take script asking for no rows,
 * so the same single use, deadline and expiry as any take. For a caller that holds the rows
 * itself (the near cache).
 *
 * @returns what the budget needs, or `undefined` when there is no entry (taken, expired)
 * @throws RedisLateError when the script ran after its deadline (nothing was changed)
 */
export async function claimEntry(
  options: Omit<TakeEntryOptions, 'rowIds' | 'selecting' | 'retry'>,
): Promise<Claimed | undefined> {
  const claim = { ...options, rowIds: [] };
  const reply = await runTake(claim, false);
  if (!reply) return undefined;
  // The columns are not parsed: the caller has them.
  const [tableRows, bytes, blocks] = reply.slice(2, 5).map((v) => Number(text(v)));
  if (![tableRows, bytes, blocks].every((v) => Number.isSafeInteger(v)))
    throw corrupt('an entry with unreadable metadata');
  if ((blocks as number) > TAKE_EXPIRES_BLOCKS) expireBlocks(claim, blocks as number);
  return { tableRows: tableRows as number, bytes: bytes as number };
}

/**
 * Takes the entry at `redisKey`: the requested rows, or all of them as blocks.
 *
 * @returns the rows and the entry's size, or `undefined` when there is no entry
 * @throws RedisLateError when the script ran after its deadline (nothing was changed)
 */
export async function takeEntry(options: TakeEntryOptions): Promise<Taken | undefined> {
  const { connection, rowIds } = options;
  // A whole table: its offsets and first blocks are asked for in the same write as the claim, just
  // before it, so Redis answers all of it in one round trip (a second one used to cost as much as
  // the rest of a small table's take). Blocks never change once written, so reading them before
  // the claim reads what the claim would have given; they are used only when the claim is ours,
  // and dropped unread otherwise (a 404 reads missing keys).
  const ahead = rowIds ? undefined : readAhead(options);
  // Where Redis surely runs those reads before the claim (one connection, commands in the order
  // sent), the claim lets a table read whole expire at once: no further command removes it. A
  // cluster client routes each command through promises of its own, so its order is not relied on.
  const readFirst = ahead !== undefined && IN_ORDER.has(connection.kind);
  const reply = await runTake(options, readFirst);
  if (!reply) return undefined;
  const meta = parseMeta(reply);
  const base = { columns: meta.columns, tableRows: meta.tableRows };
  // The script let a small entry go itself; a larger one's rest goes now, off the answer's path.
  if (!options.retry && rowIds && meta.blocks > TAKE_EXPIRES_BLOCKS)
    expireBlocks(options, meta.blocks);
  if (rowIds) {
    const slots = reply.slice(7).map(bytes);
    if (slots.length !== rowIds.length) throw corrupt('an unexpected reply to a take');
    const present: Buffer[] = [];
    const missing: number[] = [];
    slots.forEach((row, i) => {
      if (row) present.push(row);
      else missing.push(rowIds[i] as number);
    });
    const { pieces, ends, byteLength } = rowPieces(present);
    return {
      result: { ...base, missing, byteLength, ends, chunks: chunksOf(pieces) },
      bytes: meta.size,
    };
  }
  if (Number(reply[0]) !== TAKE_CLAIMED || !ahead) throw corrupt('an unexpected reply to a take');
  // The blocks are read as the response is written (see readClaimed), so a table of any size
  // passes through in pieces; reads asked for past the table's last block answered nothing.
  const first = ahead.blocks.slice(0, meta.blocks);
  // A table whose every block was read with the claim goes now (through a cluster client, by
  // the expiry sent here, which Redis runs after those reads): a reader that never reads holds no
  // memory in Redis. A larger table goes when it has been read.
  const expired = !options.retry && meta.blocks <= READ_AHEAD;
  if (expired && !readFirst) expireBlocks(options, meta.blocks);
  let ends: Uint32Array;
  try {
    ends = endsOf(await ahead.offsets, meta);
  } catch (error) {
    // Nobody will read the blocks: drop them now rather than at the end of the hold.
    if (!options.retry && !expired) expireBlocks(options, meta.blocks);
    throw error;
  }
  return {
    result: {
      ...base,
      missing: [],
      byteLength: meta.joinedBytes,
      ends,
      // A generator even when the first read holds the whole table: handing its blocks over as
      // held pieces, awaited here, made the engine run a full collection every ~30 ms
      // (`--trace-gc`; server CPU 1.8 ms against 0.8 ms a take of 1,000 rows).
      chunks: readClaimed(options, meta, first, !options.retry && !expired),
    },
    bytes: meta.size,
  };
}
