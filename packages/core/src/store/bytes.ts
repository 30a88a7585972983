import { heldPieces } from './held-chunks.js';

/** Joins byte chunks into one buffer (the chunk itself when there is only one). */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  let size = 0;
  for (const chunk of chunks) size += chunk.byteLength;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/**
 * Reads byte chunks (such as `TakenRows.chunks`) to the end into one buffer. A single
 * chunk is returned as it is, so a store that hands over one buffer costs no copy.
 *
 * @param chunks - consumed to the end
 */
export async function collectBytes(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const held = heldPieces(chunks);
  if (held) return concatBytes(held);
  const pieces: Uint8Array[] = [];
  for await (const chunk of chunks) pieces.push(chunk);
  return concatBytes(pieces);
}
