import { describe, expect, it } from 'vitest';
import { S2SPError } from '../errors.js';
import { readTaken } from '../testing/read-taken.js';
import type { TakenRows } from './body-store.js';
import { collectBytes } from './bytes.js';
import { encodeRows } from './encode-rows.js';
import { chunksOf } from './held-chunks.js';
import { selectRows, takenRowBytes } from './taken-rows.js';

const rows = [
  '{"_row_id":0,"t":"€"}',
  '{"_row_id":1}',
  '{"_row_id":2,"t":"😀, ß"}',
  '{"_row_id":3}',
];
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The table as a store would stream it: cut every `cut` bytes. */
function cutEvery(cut: number, fields: Partial<TakenRows> = {}): TakenRows {
  const { joined, ends } = encodeRows(rows);
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < joined.byteLength; at += cut) pieces.push(joined.slice(at, at + cut));
  return {
    columns: ['t'],
    tableRows: rows.length,
    missing: [],
    byteLength: joined.byteLength,
    ends,
    chunks: chunksOf(pieces),
    ...fields,
  };
}

async function all(iterable: AsyncIterable<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const row of iterable) out.push(decode(row));
  return out;
}

describe('selectRows', () => {
  const table = () => ({ columns: ['t'], ...encodeRows(rows) });

  it('hands all rows over as the encoded buffer itself', async () => {
    const encoded = table();
    const taken = selectRows(encoded);
    expect(taken.ends).toBe(encoded.ends);
    expect(await collectBytes(taken.chunks)).toBe(encoded.joined);
    expect(taken.missing).toEqual([]);
  });

  it('hands a run of consecutive rows over as a view, without copying', async () => {
    const encoded = table();
    const taken = selectRows(encoded, [1, 2]);
    const bytes = await collectBytes(taken.chunks);
    expect(bytes.buffer).toBe(encoded.joined.buffer);
    expect(decode(bytes)).toBe(`${rows[1]},${rows[2]}`);
    expect([...taken.ends]).toEqual([13, bytes.byteLength]);
  });

  it('hands scattered rows over as views of runs with commas between, and lists the ids the table lacks', async () => {
    const encoded = table();
    const taken = selectRows(encoded, [0, 2, 3, 4, 9]);
    expect(taken.tableRows).toBe(4);
    expect(taken.missing).toEqual([4, 9]);
    const pieces: Uint8Array[] = [];
    for await (const piece of selectRows(table(), [0, 2, 3]).chunks) pieces.push(piece);
    expect(pieces.map(decode)).toEqual([rows[0], ',', `${rows[2]},${rows[3]}`]);
    const read = await readTaken(taken);
    expect(read?.rows).toEqual([rows[0], rows[2], rows[3]]);
    expect(taken.byteLength).toBe(
      read?.rows.reduce((n, r) => n + new TextEncoder().encode(r).byteLength + 1, -1),
    );
  });

  it('keeps the views on the table and gives each take commas of its own', async () => {
    const encoded = table();
    const pieces: Uint8Array[] = [];
    for await (const piece of selectRows(encoded, [0, 3]).chunks) pieces.push(piece);
    expect(pieces[0]?.buffer).toBe(encoded.joined.buffer);
    expect(pieces[2]?.buffer).toBe(encoded.joined.buffer);
    expect(pieces[1]?.buffer).not.toBe(encoded.joined.buffer);
    (pieces[1] as Uint8Array)[0] = 10;
    const again: Uint8Array[] = [];
    for await (const piece of selectRows(table(), [0, 3]).chunks) again.push(piece);
    expect(decode(again[1] as Uint8Array)).toBe(',');
  });

  it('offers a release only when given one, and calls that at most once', () => {
    expect(selectRows(table(), [0]).release).toBeUndefined();
    let calls = 0;
    const taken = selectRows(table(), undefined, () => calls++);
    taken.release?.();
    taken.release?.();
    expect(calls).toBe(1);
  });

  it('returns nothing but missing ids when the table has none of them', async () => {
    const taken = selectRows(table(), [7]);
    expect(taken.byteLength).toBe(0);
    expect(taken.ends).toHaveLength(0);
    expect(await all(taken.chunks)).toEqual([]);
  });
});

describe('takenRowBytes', () => {
  it('cuts rows wherever the chunks are cut, even inside a character or at a comma', async () => {
    for (const cut of [1, 2, 3, 13, 14, 15, 1000]) {
      expect(await all(takenRowBytes(cutEvery(cut)))).toEqual(rows);
    }
  });

  it('reads an empty answer', async () => {
    const empty = { ...cutEvery(1), byteLength: 0, ends: new Uint32Array(0), chunks: chunksOf([]) };
    expect(await all(takenRowBytes(empty))).toEqual([]);
  });

  it('refuses an answer whose parts disagree, with internal', async () => {
    const { ends, byteLength } = cutEvery(1);
    const shifted = Uint32Array.from(ends, (end, i) => (i < ends.length - 1 ? end - 1 : end));
    const bad: Partial<TakenRows>[] = [
      { byteLength: byteLength + 1 }, // says more than the chunks hold
      { ends: shifted }, // ends off the commas
      { ends: Uint32Array.from([ends[1] as number, ends[0] as number, ...ends.slice(2)]) },
      { ends: ends.slice(0, -1) }, // the last row does not end at byteLength
    ];
    for (const fields of bad) {
      for (const cut of [1, 5, 1000]) {
        const error = await all(takenRowBytes(cutEvery(cut, fields))).catch((e: unknown) => e);
        expect(S2SPError.isInstance(error) && error.code).toBe('internal');
      }
    }
    // Chunks that hold more than byteLength says.
    const long = cutEvery(5, { chunks: chunksOf([encodeRows([...rows, '{}']).joined]) });
    const error = await all(takenRowBytes(long)).catch((e: unknown) => e);
    expect(S2SPError.isInstance(error) && error.code).toBe('internal');
  });
});
