import { describe, expect, it } from 'vitest';
import { encodeRows } from './encode-rows.js';

describe('encodeRows', () => {
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

  it('joins rows by commas and records where each ends', () => {
    const rows = ['{"_row_id":0}', '{"_row_id":1,"a":"x"}', '{}'];
    const { joined, ends } = encodeRows(rows);
    expect(decode(joined)).toBe(rows.join(','));
    expect([...ends]).toEqual([13, 35, 38]);
  });

  it('encodes non-ASCII and astral characters exactly, growing the buffer as needed', () => {
    const rows = ['{"a":"é"}', `{"b":"${'😀'.repeat(500)}"}`, '{"c":"Ωmega ß"}', ''];
    const { joined, ends } = encodeRows(rows);
    expect(decode(joined)).toBe(rows.join(','));
    expect(joined.byteLength).toBe(new TextEncoder().encode(rows.join(',')).byteLength);
    expect(decode(joined.subarray(ends[0]! + 1, ends[1]))).toBe(rows[1]);
    expect(joined.buffer.byteLength).toBe(joined.byteLength);
  });

  it('handles no rows', () => {
    const { joined, ends } = encodeRows([]);
    expect(joined.byteLength).toBe(0);
    expect(ends).toHaveLength(0);
  });

  it('joins rows given as UTF-8 bytes as they are, next to rows given as text', () => {
    const rows = ['{"a":"é"}', new TextEncoder().encode('{"b":"😀"}'), '{"c":1}'];
    const { joined, ends } = encodeRows(rows);
    expect(decode(joined)).toBe('{"a":"é"},{"b":"😀"},{"c":1}');
    expect([...ends]).toEqual([10, 23, 31]);
  });
});

describe('encodeRows of a stored table', () => {
  it("takes the table's own encoding when it carries one, else encodes its rows", () => {
    const rows = ['{"_row_id":0,"a":1}'];
    const own = { joined: new Uint8Array([1]), ends: Uint32Array.of(1) };
    expect(encodeRows({ columns: ['a'], rows, encode: () => own })).toBe(own);
    expect(encodeRows({ columns: ['a'], rows })).toEqual(encodeRows(rows));
  });

  it('writes a row given as its id prefix and a tail apart, byte for byte the joined row', () => {
    const rows = ['{"_row_id":0,"a":"é"}', '{"_row_id":1}'];
    expect(encodeRows(rows, { tails: ['"a":"é"}', undefined] })).toEqual(encodeRows(rows));
  });

  it('writes into the buffer `allocate` gives, and hands it to a table that encodes itself', () => {
    const rows = ['{"_row_id":0,"a":1}', '{"_row_id":1}'];
    const sizes: number[] = [];
    const backing = new Uint8Array(64);
    const allocate = (size: number) => {
      sizes.push(size);
      return backing.subarray(0, size);
    };
    const { joined } = encodeRows(rows, { allocate });
    expect(sizes).toEqual([rows.join(',').length]);
    expect(joined.buffer).toBe(backing.buffer);
    expect(new TextDecoder().decode(joined)).toBe(rows.join(','));
    let given: unknown;
    const own = { joined: new Uint8Array([1]), ends: Uint32Array.of(1) };
    const encode = (a?: (size: number) => Uint8Array) => {
      given = a;
      return own;
    };
    encodeRows({ columns: ['a'], rows, encode }, { allocate });
    expect(given).toBe(allocate);
  });

  it('asks `allocate` again for the exact size when the rows outgrow its first buffer (non-ASCII)', () => {
    const rows = ['{"_row_id":0,"a":"ééé"}'];
    const sizes: number[] = [];
    const { joined } = encodeRows(rows, {
      allocate: (size) => {
        sizes.push(size);
        return new Uint8Array(size);
      },
    });
    expect(sizes).toEqual([rows[0]?.length, new TextEncoder().encode(rows[0]).byteLength]);
    expect(new TextDecoder().decode(joined)).toBe(rows[0]);
  });
});
