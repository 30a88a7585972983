/**
 * The row encoding every store keeps: a table's rows as UTF-8 JSON joined by commas, with where
 * each row ends — the body of a whole-table response as it is, and what {@link selectRows} cuts
 * a take's answer from.
 *
 * @module
 */

import type { StoredTable } from './body-store.js';

const encoder = new TextEncoder();

/**
 * Joins rows into one buffer, by commas, with where each row ends: the encoding a store keeps
 * (done once, at cache time, so a whole-table redemption writes these bytes as they are and a
 * run of selected rows is a zero-copy view) and the shape of {@link TakenRows}. Rows given as
 * bytes (already UTF-8) are copied as they are. For ASCII rows (most JSON) the first size estimate
 * is exact and nothing is copied twice.
 *
 * Give a store's table itself (`encodeRows(table)`), not only its rows: a table that carries its
 * encoding ({@link StoredTable.encode}, made from bytes or texts its builder already held) is
 * then taken as it is, without a copy.
 *
 * @param source - a stored table, or rows
 * @param options - `tails`: for rows joined from their `{"_row_id":i,` and a slice of a larger
 *   text (row `i` is that prefix followed by `tails[i]` where it is set), the slices. The two
 *   parts are encoded apart, because encoding the joined row would make the engine flatten it, a
 *   copy of every row held as long as the rows are; `@s2sp/server`'s `serializeTable` passes them.
 *   `allocate`: where the joined bytes are written (a store's pool of reusable buffers; the
 *   memory store passes one), also handed to the table's own {@link StoredTable.encode}.
 */
export function encodeRows(
  source: StoredTable | readonly (string | Uint8Array)[],
  options: {
    readonly tails?: readonly (string | undefined)[];
    readonly allocate?: (size: number) => Uint8Array;
  } = {},
): {
  joined: Uint8Array;
  ends: Uint32Array;
} {
  const { tails, allocate } = options;
  if (!isRowList(source) && source.encode) return source.encode(allocate);
  const rows = isRowList(source) ? source : source.rows;
  let estimate = Math.max(0, rows.length - 1);
  for (const row of rows) estimate += row.length;
  let buffer = allocate ? allocate(estimate) : new Uint8Array(estimate);
  let grown = false;
  let position = 0;
  const ends = new Uint32Array(rows.length);
  const ensure = (more: number) => {
    if (position + more <= buffer.length) return;
    const next = new Uint8Array(Math.max(buffer.length * 2, position + more));
    next.set(buffer.subarray(0, position));
    buffer = next;
    grown = true;
  };
  const write = (text: string) => {
    let rest = text;
    for (;;) {
      const { read, written } = encoder.encodeInto(rest, buffer.subarray(position));
      position += written;
      if (read >= rest.length) return;
      rest = rest.slice(read);
      ensure(rest.length * 3);
    }
  };
  rows.forEach((row, i) => {
    if (i > 0) {
      ensure(1);
      buffer[position++] = 44; // ','
    }
    if (typeof row !== 'string') {
      ensure(row.byteLength);
      buffer.set(row, position);
      position += row.byteLength;
      ends[i] = position;
      return;
    }
    const tail = tails?.[i];
    if (tail === undefined) write(row);
    else {
      write(`{"_row_id":${i},`);
      write(tail);
    }
    ends[i] = position;
  });
  if (!grown) return { joined: buffer.subarray(0, position), ends };
  // Grown (non-ASCII rows): the bytes move to a buffer of their exact size, from `allocate` too.
  const joined = allocate ? allocate(position) : new Uint8Array(position);
  joined.set(buffer.subarray(0, position));
  return { joined, ends };
}

function isRowList(
  source: StoredTable | readonly (string | Uint8Array)[],
): source is readonly (string | Uint8Array)[] {
  return Array.isArray(source);
}
