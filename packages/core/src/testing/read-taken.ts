import type { BodyStore, TakenRows } from '../store/body-store.js';
import { takenRowBytes } from '../store/taken-rows.js';

/** A take's answer read into memory by {@link readTaken}. */
export interface ReadTakenRows {
  /** As in {@link TakenRows}. */
  readonly columns: readonly string[];
  /** As in {@link TakenRows}. */
  readonly tableRows: number;
  /** As in {@link TakenRows}. */
  readonly missing: readonly number[];
  /** As in {@link TakenRows}: the chunks' length, checked against what they held. */
  readonly byteLength: number;
  /** Each returned row's JSON text, cut at `ends`. */
  readonly rows: string[];
  /** All returned rows' JSON text, joined by commas, as the chunks carried it. */
  readonly text: string;
}

/**
 * Reads a take's answer into memory, checking that its chunks, `ends` and `byteLength` agree
 * (each row ends where `ends` says, with a comma before the next, and the last at `byteLength`).
 * Consumes the chunks.
 *
 * @param taken - what {@link BodyStore.take} returned
 * @returns `undefined` for `undefined`
 * @throws S2SPError `internal` when the answer does not hold together
 */
export async function readTaken(taken: TakenRows | undefined): Promise<ReadTakenRows | undefined> {
  if (!taken) return undefined;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const rows: string[] = [];
  // takenRowBytes checks the offsets against the bytes; a row must be whole UTF-8 by itself.
  for await (const row of takenRowBytes(taken)) rows.push(decoder.decode(row));
  return {
    columns: taken.columns,
    tableRows: taken.tableRows,
    missing: taken.missing,
    byteLength: taken.byteLength,
    rows,
    text: rows.join(','),
  };
}
