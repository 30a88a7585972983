/**
 * Building and reading {@link TakenRows}: the rules every store and every reader share, so that
 * they agree on where a row starts and how selected rows are joined.
 *
 * @module
 */

import { S2SPError } from '../errors.js';
import type { TakenRows } from './body-store.js';
import { concatBytes } from './bytes.js';
import { chunksOf } from './held-chunks.js';

const COMMA = 44;

/** Where row `i` starts in joined rows: one byte (the comma) after row `i - 1` ends. */
function rowStart(ends: Uint32Array, i: number): number {
  return i === 0 ? 0 : (ends[i - 1] as number) + 1;
}

/** A table as a store keeps it encoded: see {@link encodeRows}. */
export interface JoinedTable {
  /** The table's columns (without `_row_id`). */
  readonly columns: readonly string[];
  /** Every row's UTF-8 JSON, joined by commas. */
  readonly joined: Uint8Array;
  /** Where each row ends (exclusive) in `joined`. */
  readonly ends: Uint32Array;
}

/**
 * The answer of a take from a table held as joined bytes: all rows, or those `rowIds` asks for.
 * All rows, or any run of consecutive ids, are handed over as a view of `joined` (no copy);
 * scattered ids as one view per run, with a comma piece between runs (no copy either). The
 * taker may change the bytes, so `joined` must not be used again.
 *
 * @param table - the encoded table
 * @param rowIds - distinct ids in ascending order (see {@link BodyStore.take}); omit for all rows
 * @param release - for a store that reuses `joined` (see `createBytePool`): gives it back; the
 *   answer's `TakenRows.release` calls it at most once, however often the taker calls that
 */
export function selectRows(
  table: JoinedTable,
  rowIds?: readonly number[],
  release?: () => void,
): TakenRows {
  const { columns, joined, ends } = table;
  let released = false;
  const base = {
    columns,
    tableRows: ends.length,
    ...(release && {
      release: () => {
        if (released) return;
        released = true;
        release();
      },
    }),
  };
  if (!rowIds)
    return {
      ...base,
      missing: [],
      byteLength: joined.byteLength,
      ends,
      chunks: chunksOf([joined]),
    };
  const missing: number[] = [];
  const picked: number[] = [];
  for (const id of rowIds) {
    if (Number.isSafeInteger(id) && id >= 0 && id < ends.length) picked.push(id);
    else missing.push(id);
  }
  const selectedEnds = new Uint32Array(picked.length);
  // Consecutive ids form runs that are contiguous in `joined`, commas included.
  const runs: [from: number, to: number][] = [];
  let size = 0;
  picked.forEach((id, i) => {
    const from = rowStart(ends, id);
    const to = ends[id] as number;
    size += (i > 0 ? 1 : 0) + to - from;
    selectedEnds[i] = size;
    const last = runs[runs.length - 1];
    if (last && picked[i - 1] === id - 1) last[1] = to;
    else runs.push([from, to]);
  });
  // Each run is a view of `joined`; the commas between runs are bytes of their own (the taker
  // may turn them into newlines), so a few scattered rows cost no copy and no large allocation.
  const commas = new Uint8Array(Math.max(0, runs.length - 1)).fill(COMMA);
  const pieces: Uint8Array[] = [];
  runs.forEach(([from, to], i) => {
    if (i > 0) pieces.push(commas.subarray(i - 1, i));
    pieces.push(joined.subarray(from, to));
  });
  return {
    ...base,
    missing,
    byteLength: size,
    ends: selectedEnds,
    chunks: chunksOf(pieces),
  };
}

function mismatch(what: string): S2SPError {
  return new S2SPError(
    'internal',
    `The body store returned rows whose ${what}. This is a bug in the store: check it with describeBodyStoreContract from @s2sp/core/testing.`,
  );
}

/**
 * Each returned row of a take as its UTF-8 JSON, in order, cut at {@link TakenRows.ends} as the
 * chunks arrive: a row inside one chunk is a view of it, only a row cut across chunks is copied,
 * and no more than one row is held beyond the current chunk. Consumes `taken.chunks`.
 *
 * @param taken - a take's answer
 * @throws S2SPError `internal` when the chunks, `ends` and `byteLength` do not agree (a row does
 *   not end where `ends` says, with a comma before the next one)
 */
export async function* takenRowBytes(taken: TakenRows): AsyncGenerator<Uint8Array> {
  const { ends, byteLength } = taken;
  const rows = ends.length;
  for (let i = 0; i < rows; i++)
    if ((ends[i] as number) < rowStart(ends, i)) throw mismatch('row ends are out of order');
  if ((rows === 0 ? 0 : (ends[rows - 1] as number)) !== byteLength)
    throw mismatch('last row does not end at byteLength');
  let offset = 0; // bytes before the current chunk
  let row = 0;
  let start = 0; // where the current row starts
  const carry: Uint8Array[] = []; // the current row's bytes from earlier chunks
  for await (const piece of taken.chunks) {
    const stop = offset + piece.byteLength;
    // The comma before the current row, when it is this chunk's first byte.
    if (row > 0 && row < rows && start - 1 === offset && stop > offset && piece[0] !== COMMA)
      throw mismatch('ends do not fall on the commas between them');
    while (row < rows && (ends[row] as number) <= stop) {
      const end = ends[row] as number;
      const part = piece.subarray(Math.max(start - offset, 0), end - offset);
      yield carry.length > 0 ? concatBytes(carry.splice(0).concat(part)) : part;
      row++;
      start = end + 1;
      if (row < rows && end < stop && piece[end - offset] !== COMMA)
        throw mismatch('ends do not fall on the commas between them');
    }
    if (row < rows && start < stop) carry.push(piece.subarray(Math.max(start - offset, 0)));
    offset = stop;
  }
  if (offset !== byteLength) throw mismatch('chunks do not add up to byteLength');
}
