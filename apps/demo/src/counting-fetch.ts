/** Bytes that went through a fetch: request bodies sent and response bodies received. */
export interface ByteCounter {
  sent: number;
  received: number;
}

/**
 * A `fetch` that counts the bytes of every request and response body passing through it: what
 * the agent process handled, as opposed to what its model read.
 */
export function createCountingFetch(counter: ByteCounter): typeof fetch {
  return async (input, init) => {
    const body = init?.body;
    if (typeof body === 'string') counter.sent += Buffer.byteLength(body);
    else if (body instanceof Uint8Array || body instanceof ArrayBuffer)
      counter.sent += body.byteLength;
    const response = await fetch(input, init);
    if (!response.body) return response;
    const counting = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        counter.received += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counting), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
