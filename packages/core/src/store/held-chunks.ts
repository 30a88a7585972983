/**
 * Chunks a store already holds in memory: readable as the async iterable that
 * `TakenRows.chunks` is, and, for a reader that can use them so, all at once.
 *
 * @module
 */

/** What {@link chunksOf} returns: an async iterable of byte pieces that are all at hand. */
export interface HeldChunks extends AsyncIterable<Uint8Array> {
  /** The pieces, in order, none empty. */
  readonly pieces: readonly Uint8Array[];
}

// Made by chunksOf alone, so a `pieces` member on another iterable is never taken for these.
const HELD = new WeakSet<object>();

/**
 * Pieces a store holds in memory, as the async iterable `TakenRows.chunks` is. Empty
 * pieces are left out. A reader may take them at once with {@link heldPieces}.
 *
 * @param pieces - consecutive pieces of the joined rows
 */
export function chunksOf(pieces: readonly Uint8Array[]): HeldChunks {
  const held: readonly Uint8Array[] = pieces.filter((piece) => piece.byteLength > 0);
  const chunks: HeldChunks = {
    pieces: held,
    async *[Symbol.asyncIterator]() {
      yield* held;
    },
  };
  HELD.add(chunks);
  return chunks;
}

/**
 * The pieces of chunks made by {@link chunksOf}, at once: a reader that has nothing to wait for
 * then spends no await per piece (a 10-row take from the memory store is some 20 pieces). Any
 * other iterable gives `undefined` and is read as usual.
 *
 * @param chunks - a `TakenRows.chunks`, or anything built from it
 */
export function heldPieces(chunks: AsyncIterable<Uint8Array>): readonly Uint8Array[] | undefined {
  return HELD.has(chunks) ? (chunks as HeldChunks).pieces : undefined;
}
