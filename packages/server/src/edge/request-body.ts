import type { IncomingMessage } from 'node:http';
import { readBodyCapped, S2SPError } from '@s2sp/core';
import { chunksOf, collectBytes } from '@s2sp/core/store';
import { sendWholeBody } from '../advice.js';

/** Default time allowed for a request body to arrive once its headers are in: 10 s. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

function timeoutError(timeoutMs: number): S2SPError {
  return new S2SPError(
    'request_timeout',
    `The request body did not arrive within ${timeoutMs} ms. ${sendWholeBody}`,
  );
}

/** The parts of a Node request (`c.env.incoming` under `@hono/node-server`) read here. */
type NodeIncoming = Pick<
  IncomingMessage,
  'headers' | 'on' | 'off' | 'pause' | 'readableDidRead' | 'readableEnded'
> &
  Partial<Pick<IncomingMessage, 'read' | 'readableFlowing' | 'readableLength' | 'resume'>>;

function nodeIncoming(env: unknown): NodeIncoming | undefined {
  const incoming = (env as { incoming?: unknown } | undefined)?.incoming as
    | Partial<NodeIncoming>
    | undefined;
  if (
    typeof incoming?.on !== 'function' ||
    typeof incoming.headers !== 'object' ||
    incoming.readableDidRead !== false
  )
    return undefined;
  return incoming as NodeIncoming;
}

/**
 * Reads a Node request's body of at most `maxBytes` within `timeoutMs`, without a Fetch `Request`
 * (see {@link readRequestBody}); declared or found larger, it stops reading and gives `undefined`.
 *
 * @param incoming - a Node request whose body nobody has read yet
 * @param maxBytes - the most bytes accepted
 * @param timeoutMs - the longest the body may take to arrive
 * @throws S2SPError `request_timeout` when the body is not complete in time
 */
export function readNode(
  incoming: NodeIncoming,
  maxBytes: number,
  timeoutMs: number,
): Promise<Uint8Array | undefined> {
  const declared = Number(incoming.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(undefined);
  // All of the declared body is here already: a small body comes in its headers' packet, and
  // Node's parser has buffered it by the time the handler asks. Taken at once, without a timer,
  // listeners and a wait for the `end` event (a tenth of a small redemption's time on the server);
  // `resume` lets the stream end as usual.
  if (
    declared > 0 &&
    incoming.readableLength === declared &&
    incoming.readableFlowing !== true &&
    incoming.read &&
    incoming.resume
  ) {
    const body = incoming.read() as Buffer | null;
    incoming.resume();
    if (body && body.byteLength === declared) return Promise.resolve(body);
    return Promise.reject(
      new S2SPError('internal', 'The request body could not be read. Send the request again.'),
    );
  }
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    // A client that sends headers and then trickles (or never sends) its body would otherwise
    // hold a connection and a handler for as long as it likes.
    const timer = setTimeout(() => {
      done();
      incoming.pause();
      reject(timeoutError(timeoutMs));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        // Stop reading; the server adapter drains or drops the rest after the 413 is sent.
        done();
        incoming.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(collectBytes(chunksOf(chunks)));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
  });
}

async function readFetch(
  request: Request,
  maxBytes: number,
  timeoutMs: number,
): Promise<Uint8Array | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([readBodyCapped(request, maxBytes), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads a request body of at most `maxBytes` (see `readBodyCapped`) within `timeoutMs`. Under `@hono/node-server`
 * it reads the Node request directly: going through the Fetch `Request` would build an undici
 * request, an abort signal and a web stream for every call, which is most of the cost of a small
 * redemption. Anywhere else (other runtimes, `app.request()` in tests) it reads the Fetch body.
 *
 * @param request - the Fetch request
 * @param env - the Hono context's `env` (`{ incoming, outgoing }` under `@hono/node-server`)
 * @param maxBytes - the most bytes accepted
 * @param timeoutMs - the longest the body may take to arrive
 * @returns the bytes, or `undefined` when the body is over the limit
 * @throws S2SPError `request_timeout` when the body is not complete in time
 */
export function readRequestBody(
  request: Request,
  env: unknown,
  maxBytes: number,
  timeoutMs: number = DEFAULT_BODY_TIMEOUT_MS,
): Promise<Uint8Array | undefined> {
  const incoming = nodeIncoming(env);
  return incoming
    ? readNode(incoming, maxBytes, timeoutMs)
    : readFetch(request, maxBytes, timeoutMs);
}
