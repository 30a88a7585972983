import { concatBytes } from '../store/bytes.js';

/** A `Request` or `Response`: headers and a web stream body. */
export interface BodyCarrier {
  readonly headers: Headers;
  readonly body: ReadableStream<Uint8Array> | null;
}

/**
 * Reads a message body completely, but never more than `maxBytes` of it: a larger declared
 * `Content-Length` is refused before reading, and a body that grows past the limit while
 * streaming is cancelled at once, so a hostile peer cannot make us buffer more than the limit.
 *
 * @param message - a `Request` or `Response`
 * @param maxBytes - the most bytes accepted
 * @param onRead - called before each chunk is counted with the bytes read until then (for
 *   progress reports; see `progressThrottle`)
 * @returns the body's bytes, or `undefined` when it is over the limit (the caller reports it,
 *   with advice that fits its side of the exchange)
 */
export async function readBodyCapped(
  message: BodyCarrier,
  maxBytes: number,
  onRead?: (bytesBefore: number) => void,
): Promise<Uint8Array | undefined> {
  const declared = Number(message.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await message.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!message.body) return new Uint8Array(0);
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    onRead?.(size);
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return chunks.length === 0 ? new Uint8Array(0) : concatBytes(chunks);
}
