import { PROTOCOL, type Row, S2SPError } from '@s2sp/core';
import type { StoredTable } from '@s2sp/core/store';

/**
 * A table's rows as UTF-8 bytes of JSON objects inside one buffer: how a caller that holds a large
 * table's JSON as bytes (the proxy reads an upstream's answer so) hands it to the store without
 * decoding it into a string or copying it. Given to `serializeTable` as `{ bytes }` (see
 * `RowJson`): the stored row `i` is `{"_row_id":i,` followed by the bytes after the row's `{`,
 * byte for byte.
 */
export interface RowBytes {
  /**
   * The bytes; row `i` is `bytes.subarray(starts[i], ends[i])`, one JSON object on one line. The
   * caller gives up the whole `bytes.buffer`: the encoding is built in place in it (it may be
   * overwritten anywhere and resized, when resizable), and a store may keep it.
   */
  readonly bytes: Uint8Array;
  /** Where each row's `{` is, ascending. */
  readonly starts: Uint32Array;
  /** Where each row ends (just after its `}`). */
  readonly ends: Uint32Array;
}

const WS = (c: number | undefined) => c === 32 || c === 9;
const OPEN = new TextEncoder().encode(`{"${PROTOCOL.rowId}":`);
const decoder = new TextDecoder();

/**
 * Checks that `source` describes `rows.length` one-line JSON objects, in order, within its bytes.
 *
 * @throws S2SPError `invalid_rows` when it does not
 */
function checkRowBytes(rows: readonly Row[], source: RowBytes): void {
  const { bytes, starts, ends } = source;
  const bad = (why: string) =>
    new S2SPError('invalid_rows', `The row bytes handed to the store do not fit: ${why}.`);
  if (starts.length !== rows.length || ends.length !== rows.length)
    throw bad(`${starts.length} rows for a table of ${rows.length}`);
  let previous = 0;
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i] as number;
    const end = ends[i] as number;
    if (start < previous || end <= start + 1 || end > bytes.length)
      throw bad(`row ${i} is out of order or out of bounds`);
    if (bytes[start] !== 123 || bytes[end - 1] !== 125) throw bad(`row ${i} is not an object`);
    previous = end;
  }
  const n = starts.length;
  if (n > 0) {
    const span = bytes.subarray(starts[0], ends[n - 1]);
    if (span.indexOf(10) >= 0 || span.indexOf(13) >= 0) throw bad('a row has a line break');
  }
}

const handedOver = () =>
  new S2SPError(
    'invalid_config',
    'The rows of a table stored from its bytes were handed to a store already: put such a table once.',
  );

const digits = (i: number) => (i < 10 ? 1 : Math.floor(Math.log10(i)) + 1);

/** Whether row `i` has members (else it is stored as `{"_row_id":i}`). */
function hasMembers(b: Uint8Array, start: number, end: number): boolean {
  let at = start + 1;
  while (at < end && WS(b[at])) at++;
  return b[at] !== 125;
}

/**
 * How many UTF-16 code units `bytes` decodes to (its string's `length`), counted without decoding:
 * one per character, two for a character of four bytes (a surrogate pair).
 */
function utf16Length(bytes: Uint8Array, start: number, end: number): number {
  let units = 0;
  for (let at = start; at < end; at++) {
    const b = bytes[at] as number;
    // Continuation bytes (10xxxxxx) add nothing; a four-byte lead (11110xxx) adds two.
    if (b < 0x80) units++;
    else if (b >= 0xc0) units += b >= 0xf0 ? 2 : 1;
  }
  return units;
}

/** The stored length of row `i` (UTF-8 bytes). */
function storedLength(b: Uint8Array, start: number, end: number, i: number): number {
  const prefix = OPEN.length + digits(i) + 1;
  return hasMembers(b, start, end) ? prefix + (end - start - 1) : prefix;
}

/** Writes the stored row `i`'s prefix (`{"_row_id":i,` or, without members, `{"_row_id":i}`). */
function writePrefix(out: Uint8Array, at: number, i: number, members: boolean): number {
  out.set(OPEN, at);
  let w = at + OPEN.length + digits(i);
  const end = w;
  for (let v = i; ; v = Math.floor(v / 10)) {
    out[--w] = 48 + (v % 10);
    if (v < 10) break;
  }
  out[end] = members ? 44 : 125;
  return end + 1;
}

/**
 * The stored rows made from their bytes, meant for one `put`: a read-only array whose row `i` is
 * decoded on access (for a store that reads the rows as strings), each row's length as a string
 * (counted from the bytes: what the byte budget and the savings receipt read, without decoding
 * every row into a string that is thrown away at once), and the encoding, built in place in the
 * caller's buffer by the store's `encodeRows(table)`, which takes the bytes; reading the rows
 * afterwards, or encoding them again, throws.
 *
 * @param rows - the row objects parsed from `source`
 * @param source - their bytes; the caller must not use `source.bytes.buffer` afterwards
 * @throws S2SPError `invalid_rows` when `source` does not describe `rows`
 */
export function storedRowsFromBytes(
  rows: readonly Row[],
  source: RowBytes,
): Pick<StoredTable, 'rows' | 'encode'> & { readonly rowLengths: Uint32Array } {
  checkRowBytes(rows, source);
  // Cleared by the encoding, which hands the bytes to the store.
  const state: { bytes?: RowBytes } = { bytes: source };
  const n = source.starts.length;
  const rowLengths = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const start = source.starts[i] as number;
    const end = source.ends[i] as number;
    const prefix = OPEN.length + digits(i) + 1;
    rowLengths[i] = hasMembers(source.bytes, start, end)
      ? prefix + utf16Length(source.bytes, start + 1, end)
      : prefix;
  }
  const rowAt = (i: number): string => {
    const held = state.bytes;
    if (!held) throw handedOver();
    const start = held.starts[i] as number;
    const end = held.ends[i] as number;
    const prefix = `{"${PROTOCOL.rowId}":${i}`;
    if (!hasMembers(held.bytes, start, end)) return `${prefix}}`;
    return `${prefix},${decoder.decode(held.bytes.subarray(start + 1, end))}`;
  };
  const index = (key: string | symbol): number | undefined => {
    if (typeof key !== 'string') return undefined;
    const i = Number(key);
    return Number.isInteger(i) && i >= 0 && i < n && String(i) === key ? i : undefined;
  };
  // A Proxy, so that any store reads the rows as an array of strings without their being held.
  const lazy = new Proxy(new Array<string>(n), {
    get(target, key, receiver) {
      const i = index(key);
      return i === undefined ? Reflect.get(target, key, receiver) : rowAt(i);
    },
    has(target, key) {
      return index(key) !== undefined || Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      const i = index(key);
      if (i === undefined) return Reflect.getOwnPropertyDescriptor(target, key);
      return { value: rowAt(i), writable: false, enumerable: true, configurable: true };
    },
    ownKeys(target) {
      return [...Array.from({ length: n }, (_, i) => String(i)), ...Reflect.ownKeys(target)];
    },
    set: () => false,
    deleteProperty: () => false,
    defineProperty: () => false,
  });
  return { rows: lazy, rowLengths, encode: () => encodeInPlace(state) };
}

interface Growable {
  readonly resizable?: boolean;
  readonly maxByteLength?: number;
  resize?(length: number): void;
}

/**
 * The encoding of the stored rows (rows joined by commas, with where each ends), built in place in
 * the caller's buffer when it can grow enough, else copied once into a buffer of its own. Takes
 * the bytes: a second call, or reading the rows afterwards, throws.
 */
function encodeInPlace(state: { bytes?: RowBytes }): { joined: Uint8Array; ends: Uint32Array } {
  const source = state.bytes;
  if (!source) throw handedOver();
  state.bytes = undefined;
  const { bytes, starts, ends } = source;
  const n = starts.length;
  const out = new Uint32Array(n);
  const lengths = new Uint32Array(n);
  const members = new Uint8Array(n);
  let total = Math.max(0, n - 1);
  for (let i = 0; i < n; i++) {
    const start = starts[i] as number;
    const end = ends[i] as number;
    members[i] = hasMembers(bytes, start, end) ? 1 : 0;
    lengths[i] = storedLength(bytes, start, end, i);
    total += lengths[i] as number;
    out[i] = total - (n - 1 - i);
  }
  const buffer = bytes.buffer as ArrayBuffer & Growable;
  const base = bytes.byteOffset;
  // In place, last row first: row i's new place must not reach into rows not yet moved. Compact
  // JSON always fits (each row grows by its prefix); white space between rows may not.
  let fits = buffer.resizable === true && (buffer.maxByteLength ?? 0) >= base + total;
  for (let i = 1; fits && i < n; i++)
    if ((out[i - 1] as number) + 1 < (ends[i - 1] as number)) fits = false;
  if (!fits) {
    const joined = new Uint8Array(total);
    let at = 0;
    for (let i = 0; i < n; i++) {
      if (i > 0) joined[at++] = 44;
      const start = starts[i] as number;
      at = writePrefix(joined, at, i, members[i] === 1);
      if (members[i]) {
        joined.set(bytes.subarray(start + 1, ends[i]), at);
        at += (ends[i] as number) - start - 1;
      }
    }
    return { joined, ends: out };
  }
  if (buffer.byteLength < base + total) buffer.resize?.(base + total);
  const all = new Uint8Array(buffer, 0, buffer.byteLength);
  for (let i = n - 1; i >= 0; i--) {
    const at = base + (out[i] as number) - (lengths[i] as number);
    const start = base + (starts[i] as number);
    const end = base + (ends[i] as number);
    const prefix = OPEN.length + digits(i) + 1;
    if (members[i]) all.copyWithin(at + prefix, start + 1, end);
    writePrefix(all, at, i, members[i] === 1);
    if (i < n - 1) all[base + (out[i] as number)] = 44;
  }
  // To the start of the buffer, which then holds the encoding and nothing else (its bytes are
  // what a store is charged for).
  if (base > 0) all.copyWithin(0, base, base + total);
  buffer.resize?.(total);
  return { joined: new Uint8Array(buffer, 0, total), ends: out };
}
