import { collectBytes, createMemoryStore, encodeRows } from '@s2sp/core/store';
import { codeOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import type { RowBytes } from './row-bytes.js';
import { prepareTable, serializeTable } from './table.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A JSON array's text at `offset` in a buffer (resizable, as the proxy's line buffer is, unless
 * `fixed`), with its elements' ranges found the simple way (they hold no `},{`).
 */
function rowBytes(array: string, options: { offset?: number; fixed?: boolean } = {}): RowBytes {
  const text = encoder.encode(array);
  const offset = options.offset ?? 0;
  const buffer = options.fixed
    ? new ArrayBuffer(offset + text.length)
    : new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer)(
        offset + text.length,
        { maxByteLength: 4 * (offset + text.length) + 1024 },
      );
  const bytes = new Uint8Array(buffer, offset, text.length);
  bytes.set(text);
  const starts: number[] = [];
  const ends: number[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === 123 && depth++ === 0) starts.push(i);
    if (text[i] === 125 && --depth === 0) ends.push(i + 1);
  }
  return { bytes, starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
}

const ROWS = '[{"a":1,"b":"x\\"y"},{},{ },{"a":2,"b":"é😀","n":[1,{"c":null}]},{"a":true}]';
const EXPECTED = [
  '{"_row_id":0,"a":1,"b":"x\\"y"}',
  '{"_row_id":1}',
  '{"_row_id":2}',
  '{"_row_id":3,"a":2,"b":"é😀","n":[1,{"c":null}]}',
  '{"_row_id":4,"a":true}',
];

function stored(source: RowBytes, text: string) {
  const rows = JSON.parse(text) as Record<string, unknown>[];
  return serializeTable(prepareTable(rows), { bytes: source });
}

describe("serializeTable with the rows' bytes", () => {
  it('stores rows from their bytes: read as strings until encoded, then encoded in place', () => {
    const source = rowBytes(ROWS, { offset: 37 });
    const buffer = source.bytes.buffer;
    const table = stored(source, ROWS);
    expect(table.rows).toHaveLength(5);
    expect([...table.rows]).toEqual(EXPECTED);
    expect(table.rows.map((row) => row)).toEqual(EXPECTED);
    const { joined, ends } = encodeRows(table);
    // The caller's buffer, moved to its start and cut to the encoding: no copy.
    expect(joined.buffer).toBe(buffer);
    expect(joined.byteOffset).toBe(0);
    expect(buffer.byteLength).toBe(joined.byteLength);
    expect(decoder.decode(joined)).toBe(EXPECTED.join(','));
    expect({ joined: joined.slice(), ends }).toEqual(encodeRows(EXPECTED));
    // The bytes are the store's now: the rows cannot be read or handed over again.
    expect(codeOf(() => table.rows[0])).toBe('invalid_config');
    expect(codeOf(() => encodeRows(table))).toBe('invalid_config');
  });

  it("counts each row's length from its bytes, as the decoded row's length, and keeps it once encoded", () => {
    // Two-, three- and four-byte characters (a surrogate pair), and rows without members.
    const text = '[{"a":"é€😀"},{},{ },{"b":"x\\"y","c":[1,{"d":"😀😀"}]}]';
    const table = stored(rowBytes(text, { offset: 11 }), text);
    const decoded = [...table.rows];
    expect(decoded[0]).toBe('{"_row_id":0,"a":"é€😀"}');
    expect([...table.rowLengths]).toEqual(decoded.map((row) => row.length));
    encodeRows(table);
    // The rows are the store's now; their lengths did not need them.
    expect(codeOf(() => table.rows[0])).toBe('invalid_config');
    expect([...table.rowLengths]).toEqual(decoded.map((row) => row.length));
    // Rows stored from their texts, or stringified here, count the same.
    const rows = JSON.parse(text) as Record<string, unknown>[];
    expect([...serializeTable(prepareTable(rows)).rowLengths]).toEqual(
      serializeTable(prepareTable(rows)).rows.map((row) => row.length),
    );
  });

  it('copies once when the buffer cannot grow, or rows spaced apart would overrun each other', () => {
    const fixed = rowBytes(ROWS, { fixed: true });
    const copied = encodeRows(stored(fixed, ROWS));
    expect(copied.joined.buffer).not.toBe(fixed.bytes.buffer);
    expect(decoder.decode(copied.joined)).toBe(EXPECTED.join(','));
    const spaced = `[{"a":1}${' '.repeat(40)},${' '.repeat(40)}{"a":2}]`;
    const source = rowBytes(spaced);
    const { joined } = encodeRows(stored(source, spaced));
    expect(decoder.decode(joined)).toBe('{"_row_id":0,"a":1},{"_row_id":1,"a":2}');
  });

  it('stores a large table in place byte for byte as stringified rows would be stored', () => {
    const rows = Array.from({ length: 2_000 }, (_, i) => ({
      i,
      s: `v${i}`,
      u: i % 7 ? 'ü' : null,
    }));
    const text = JSON.stringify(rows);
    const { joined, ends } = encodeRows(stored(rowBytes(text, { offset: 5 }), text));
    expect({ joined: joined.slice(), ends }).toEqual(
      encodeRows(serializeTable(prepareTable(rows)).rows),
    );
  });

  it('stores an empty table', () => {
    const { joined, ends } = encodeRows(stored(rowBytes('[]'), '[]'));
    expect(joined.byteLength).toBe(0);
    expect(ends).toHaveLength(0);
  });

  it('refuses bytes that do not describe the rows', () => {
    const source = rowBytes(ROWS);
    expect(codeOf(() => stored(source, '[{"a":1}]'))).toBe('invalid_rows');
    const shifted = { ...source, starts: source.starts.map((s) => s + 1) };
    expect(codeOf(() => stored(shifted, ROWS))).toBe('invalid_rows');
    const broken = '[{"a":1},{"a":\n2}]';
    expect(codeOf(() => stored(rowBytes(broken), broken))).toBe('invalid_rows');
  });

  it('keeps prepareTable refusing a row that has _row_id already', () => {
    const text = '[{"a":1},{"_row_id":3}]';
    expect(codeOf(() => stored(rowBytes(text), text))).toBe('invalid_rows');
  });

  it('goes through the memory store, charged for the bytes it holds', async () => {
    const store = createMemoryStore();
    await store.put('k', stored(rowBytes(ROWS, { offset: 3 }), ROWS), { ttlMs: 60_000 });
    const joinedBytes = encoder.encode(EXPECTED.join(',')).byteLength;
    expect(await store.stats()).toEqual({ entries: 1, rows: 5, bytes: joinedBytes + 3 });
    const taken = await store.take('k', [1, 3]);
    if (!taken) throw new Error('not stored');
    expect(decoder.decode(await collectBytes(taken.chunks))).toBe(`${EXPECTED[1]},${EXPECTED[3]}`);
    await store.close();
  });
});
