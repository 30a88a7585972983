import { describe, expect, it } from 'vitest';
import { collectBytes } from './bytes.js';
import { chunksOf, heldPieces } from './held-chunks.js';

const bytes = (text: string) => new TextEncoder().encode(text);

async function readAll(chunks: AsyncIterable<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const chunk of chunks) out.push(new TextDecoder().decode(chunk));
  return out;
}

describe('chunksOf and heldPieces', () => {
  it('reads the same non-empty pieces in order, as an async iterable and all at once', async () => {
    const pieces = [bytes('{"_row_id":0}'), bytes(''), bytes(','), bytes('{"_row_id":3}')];
    const chunks = chunksOf(pieces);
    expect(heldPieces(chunks)?.map((p) => new TextDecoder().decode(p))).toEqual([
      '{"_row_id":0}',
      ',',
      '{"_row_id":3}',
    ]);
    expect(await readAll(chunks)).toEqual(['{"_row_id":0}', ',', '{"_row_id":3}']);
    // The pieces are the store's own bytes, not copies.
    expect(heldPieces(chunks)?.[0]).toBe(pieces[0]);
  });

  it('takes nothing else for held pieces, not even an iterable with a pieces member', async () => {
    const generator = (async function* () {
      yield bytes('a');
    })();
    const lookalike = { pieces: [bytes('b')], [Symbol.asyncIterator]: () => generator };
    expect(heldPieces(generator)).toBeUndefined();
    expect(heldPieces(lookalike)).toBeUndefined();
    expect(await readAll(lookalike)).toEqual(['a']);
  });

  it('lets collectBytes join held pieces without reading them one by one, one piece without a copy', async () => {
    const one = bytes('[1]');
    expect(await collectBytes(chunksOf([one]))).toBe(one);
    expect(
      new TextDecoder().decode(await collectBytes(chunksOf([bytes('[1'), bytes(',2]')]))),
    ).toBe('[1,2]');
    expect((await collectBytes(chunksOf([]))).byteLength).toBe(0);
  });
});
