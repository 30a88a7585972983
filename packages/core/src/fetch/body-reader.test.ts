import { describe, expect, it } from 'vitest';
import { readBodyCapped } from './body-reader.js';

const encoder = new TextEncoder();

function streamed(parts: string[]): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[pulled++];
      if (part === undefined) controller.close();
      else controller.enqueue(encoder.encode(part));
    },
  });
  return { stream, pulled: () => pulled };
}

describe('readBodyCapped', () => {
  it('reads a body within the limit', async () => {
    const { stream } = streamed(['{"a":', '1}']);
    const bytes = await readBodyCapped(
      new Request('http://x', { method: 'POST', body: stream, duplex: 'half' } as RequestInit),
      100,
    );
    expect(new TextDecoder().decode(bytes)).toBe('{"a":1}');
  });

  it('reads an empty or missing body as no bytes', async () => {
    expect(await readBodyCapped(new Response(null), 10)).toEqual(new Uint8Array(0));
    expect(await readBodyCapped(new Response(''), 10)).toEqual(new Uint8Array(0));
  });

  it('refuses a declared Content-Length over the limit without reading', async () => {
    const { stream, pulled } = streamed(['x'.repeat(50)]);
    const response = new Response(stream, { headers: { 'content-length': '5000' } });
    expect(await readBodyCapped(response, 100)).toBeUndefined();
    expect(pulled()).toBeLessThanOrEqual(1);
  });

  it('stops reading as soon as a streamed body passes the limit', async () => {
    const { stream, pulled } = streamed(Array.from({ length: 100 }, () => 'x'.repeat(40)));
    expect(await readBodyCapped(new Response(stream), 100)).toBeUndefined();
    expect(pulled()).toBeLessThan(10);
  });
});
