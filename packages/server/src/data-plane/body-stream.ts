/**
 * Handing a rendered data-plane body to the response: small ones as one buffer, larger ones as a
 * stream whose first part is taken from the store before the status is sent.
 *
 * @module
 */

import type { Logger } from '@s2sp/core';
import { collectBytes, heldPieces } from '@s2sp/core/store';
import type { RenderedBody } from './response-body.js';

/** Response bodies up to this size are sent as one buffer. */
const SINGLE_BUFFER_BYTES = 1024 * 1024;

/**
 * How much of a larger body is taken from the store before the status is sent. The store has
 * these bytes at hand already (the memory store's are views of the stored table; the Redis
 * store's first blocks arrive with its claim), so this costs no memory of its own.
 */
const READY_BYTES = 4 * 1024 * 1024;

/** What {@link takeReady} took from a body before its status is sent. */
export interface ReadyBody {
  /** The pieces at hand, in order: to write at once, with the head. */
  readonly ready: readonly Uint8Array[];
  /** True when `ready` is the whole body. */
  readonly done: boolean;
  /** The rest of the body, when not `done`: pull it one piece at a time. */
  readonly rest: AsyncIterator<Uint8Array>;
}

/**
 * The start of a body, taken before its status is sent: every piece the store holds (see
 * `heldPieces`), otherwise the first {@link READY_BYTES}. A store that fails now is reported and
 * its error thrown, for an error response in place of the 200.
 *
 * @param chunks - a rendered body's chunks
 * @param logger - where a store failing is reported
 */
export async function takeReady(
  chunks: AsyncIterable<Uint8Array>,
  logger: Logger,
): Promise<ReadyBody> {
  const rest = chunks[Symbol.asyncIterator]();
  const held = heldPieces(chunks);
  const ready: Uint8Array[] = held ? [...held] : [];
  let readyBytes = 0;
  let done = held !== undefined;
  try {
    while (!done && readyBytes < READY_BYTES) {
      const next = await rest.next();
      if (next.done) done = true;
      else {
        ready.push(next.value);
        readyBytes += next.value.byteLength;
      }
    }
  } catch (error) {
    storeFailed(logger, error);
    throw error;
  }
  return { ready, done, rest };
}

/**
 * A web stream of `chunks`: their start taken before the status (see {@link takeReady}), the rest
 * pulled one at a time as the consumer reads. `@hono/node-server` sends what it can read at once
 * together and otherwise waits for each chunk (a timer tick for the second): pulled one by one, a
 * 1.2 MB table from the Redis store went out at 215 MB/s against 308–316 MB/s taken at once (one
 * request at a time). Stops the source when the consumer goes away; a source that fails midway
 * aborts the response (the client sees a truncated body, never a complete-looking one), one that
 * fails before the status gets an error response.
 */
async function bodyStream(
  chunks: AsyncIterable<Uint8Array>,
  logger: Logger,
): Promise<ReadableStream<Uint8Array<ArrayBuffer>>> {
  const { ready, done, rest: iterator } = await takeReady(chunks, logger);
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      start(controller) {
        for (const chunk of ready) controller.enqueue(chunk as Uint8Array<ArrayBuffer>);
        if (done) controller.close();
      },
      async pull(controller) {
        try {
          const { done, value } = await iterator.next();
          if (done) controller.close();
          else controller.enqueue(value as Uint8Array<ArrayBuffer>);
        } catch (error) {
          storeFailed(logger, error);
          controller.error(error);
        }
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Reports a store that failed while a body was being read from it (the error's name only).
 *
 * @param logger - the data plane's logger
 * @param error - what the store threw
 */
export function storeFailed(logger: Logger, error: unknown): void {
  logger.warn('data plane: the store failed while the response was being sent', {
    error: error instanceof Error ? error.name : typeof error,
  });
}

/**
 * The body to answer with. Small bodies go out as one buffer, gathered before the status is sent
 * (a store failing now gets an error response). Anything larger is a stream (see
 * {@link bodyStream}): the cached bytes are written as they are, never copied into one buffer,
 * and a table the store streams is never all in memory.
 *
 * @param rendered - from `renderDataPlaneBody`
 * @param logger - where a store failing mid-answer is reported
 */
export async function responseBody(
  rendered: RenderedBody,
  logger: Logger,
): Promise<Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>>> {
  if (rendered.byteLength <= SINGLE_BUFFER_BYTES) {
    const body = await collectBytes(rendered.chunks).catch((error: unknown) => {
      storeFailed(logger, error);
      throw error;
    });
    return body as Uint8Array<ArrayBuffer>;
  }
  return bodyStream(rendered.chunks, logger);
}
