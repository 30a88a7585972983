import { describe, expect, it } from 'vitest';
import { BLOCK_BYTES, CHUNK_BYTES, chunkBlocks, encodeEntry } from './row-blocks.js';

describe('encodeEntry', () => {
  it('joins rows by commas, cuts every BLOCK_BYTES and records where each row ends', () => {
    const rows = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ _row_id: i, t: 'ß😀'.repeat(200) }),
    );
    const { blocks, offsets, byteLength } = encodeEntry(rows);
    const joined = Buffer.from(rows.join(','));
    expect(byteLength).toBe(joined.byteLength);
    expect(blocks.length).toBe(Math.ceil(joined.byteLength / BLOCK_BYTES));
    expect(blocks.slice(0, -1).every((b) => b.byteLength === BLOCK_BYTES)).toBe(true);
    expect(Buffer.concat(blocks).equals(joined)).toBe(true);
    const ends = Array.from({ length: rows.length }, (_, i) => offsets.readUInt32LE(i * 4));
    expect(joined.subarray(ends[41]! + 1, ends[42]).toString()).toBe(rows[42]);
    expect(ends.at(-1)).toBe(joined.byteLength);
  });

  it('encodes an empty table as no blocks and no offsets', () => {
    expect(encodeEntry([])).toEqual({
      blocks: [],
      offsets: Buffer.alloc(0),
      byteLength: 0,
      joined: new Uint8Array(0),
      ends: new Uint32Array(0),
    });
  });
});

describe('chunkBlocks', () => {
  it('groups blocks into chunks of about CHUNK_BYTES, in order', () => {
    const blocks = Array.from({ length: 20 }, (_, i) => Buffer.from([i]));
    const chunks = chunkBlocks(blocks);
    const per = CHUNK_BYTES / BLOCK_BYTES;
    expect(chunks.map((c) => c.start)).toEqual([0, per, 2 * per]);
    expect(chunks.flatMap((c) => c.blocks)).toEqual(blocks);
  });

  it('makes one empty chunk for an empty table, so its metadata is written', () => {
    expect(chunkBlocks([])).toEqual([{ start: 0, blocks: [] }]);
  });
});
