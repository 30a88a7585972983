import { chunksOf } from '@s2sp/core/store';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { responseBody } from './body-stream.js';

const MIB = 1024 * 1024;
const piece = (fill: number, size = MIB) => new Uint8Array(size).fill(fill);

async function readAll(stream: ReadableStream<Uint8Array>): Promise<number[]> {
  const firstBytes: number[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read())
    firstBytes.push(next.value[0] as number);
  return firstBytes;
}

describe('responseBody', () => {
  it('gives a body of up to 1 MiB as one buffer of its bytes', async () => {
    const body = await responseBody(
      {
        contentType: 'application/json',
        byteLength: 3,
        chunks: chunksOf([Uint8Array.of(91), Uint8Array.of(49), Uint8Array.of(93)]),
      },
      silentLogger,
    );
    expect(body).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(body as Uint8Array)).toBe('[1]');
  });

  it('queues every piece a store holds before the status, the stream already closed', async () => {
    const chunks = chunksOf([piece(1), piece(2), piece(3), piece(4), piece(5), piece(6)]);
    const body = await responseBody(
      { contentType: 'application/json', byteLength: 6 * MIB, chunks },
      silentLogger,
    );
    expect(body).toBeInstanceOf(ReadableStream);
    expect(await readAll(body as ReadableStream<Uint8Array>)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('takes the first 4 MiB of other pieces before the status and pulls the rest as read', async () => {
    let produced = 0;
    const chunks = (async function* () {
      for (let i = 1; i <= 7; i++) {
        produced = i;
        yield piece(i);
      }
    })();
    const body = await responseBody(
      { contentType: 'application/json', byteLength: 7 * MIB, chunks },
      silentLogger,
    );
    expect(produced).toBe(4);
    expect(await readAll(body as ReadableStream<Uint8Array>)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(produced).toBe(7);
  });
});
