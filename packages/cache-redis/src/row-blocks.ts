import { encodeRows, type StoredTable } from '@s2sp/core/store';
/**
 * How a table's rows are cut into Redis values. The rows' UTF-8 JSON is joined by commas once,
 * at cache time (the body of a whole-table response, minus its envelope), and cut into blocks of
 * {@link BLOCK_BYTES} — at byte positions, not at rows, so every block but the last has the same
 * size and a block may end inside a row or even a character. Blocks are binary values; they are
 * only ever decoded as a whole response.
 *
 * Why blocks of 1 MiB: a whole-table redemption is then a few large binary reads that go to the
 * HTTP response as they are (fast, like one `GET` of the same bytes), while the row offsets let a
 * script read a few rows with `GETRANGE` without touching the rest. Many small values (one per
 * row) would cost Redis an allocation each and the client a reply each; one huge value would
 * make Redis copy it all in one step and the client hold it all at once.
 *
 * @module
 */

/** Size of a block, in bytes. */
export const BLOCK_BYTES = 1024 * 1024;
/** Bytes written per put script call: small enough not to block Redis for long. */
export const CHUNK_BYTES = 8 * 1024 * 1024;

/** A table as the store writes it. */
export interface EncodedEntry {
  /** The joined rows, cut every {@link BLOCK_BYTES} (no block for an empty table). */
  readonly blocks: readonly Buffer[];
  /** Where each row ends (exclusive) in the joined bytes, as 4-byte little-endian integers. */
  readonly offsets: Buffer;
  /** Length of the joined rows, in bytes. */
  readonly byteLength: number;
  /** The joined rows the blocks are views of (`encodeRows`' layout). */
  readonly joined: Uint8Array;
  /** Where each row ends (exclusive) in `joined`; `offsets` holds the same numbers. */
  readonly ends: Uint32Array;
}

/** Consecutive blocks written by one script call. */
export interface BlockChunk {
  /** Index of the first block. */
  readonly start: number;
  readonly blocks: readonly Buffer[];
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Encodes rows into blocks and offsets. The blocks are views of one buffer (nothing is copied
 * after the encoding), and on little-endian machines so are the offsets.
 *
 * @param allocate - where the joined rows are written (the store's pool of reusable buffers)
 */
export function encodeEntry(
  rows: StoredTable | readonly string[],
  allocate?: (size: number) => Uint8Array,
): EncodedEntry {
  const { joined, ends } = encodeRows(rows, allocate ? { allocate } : {});
  const blocks: Buffer[] = [];
  for (let at = 0; at < joined.byteLength; at += BLOCK_BYTES)
    blocks.push(asBuffer(joined.subarray(at, at + BLOCK_BYTES)));
  let offsets: Buffer;
  if (LITTLE_ENDIAN)
    offsets = asBuffer(new Uint8Array(ends.buffer, ends.byteOffset, ends.byteLength));
  else {
    offsets = Buffer.alloc(ends.length * 4);
    ends.forEach((end, i) => {
      offsets.writeUInt32LE(end, i * 4);
    });
  }
  return { blocks, offsets, byteLength: joined.byteLength, joined, ends };
}

/**
 * Groups blocks into chunks of about {@link CHUNK_BYTES} (at least one block each). An empty
 * table is one empty chunk, so that its metadata still gets written.
 */
export function chunkBlocks(blocks: readonly Buffer[]): BlockChunk[] {
  const perChunk = Math.max(1, Math.floor(CHUNK_BYTES / BLOCK_BYTES));
  const chunks: BlockChunk[] = [];
  for (let start = 0; start < blocks.length; start += perChunk)
    chunks.push({ start, blocks: blocks.slice(start, start + perChunk) });
  return chunks.length > 0 ? chunks : [{ start: 0, blocks: [] }];
}
