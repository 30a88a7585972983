import { callResourceToolAgain } from '../advice/advice.js';
import { DataPlaneResponseSchema } from '../data-plane.js';
import { S2SPError } from '../errors.js';
import { formatIssues, isPlainObject, parseJsonText } from '../json.js';
import { PROTOCOL } from '../protocol.js';
import type { RowWithId } from '../resource-result.js';
import { readBodyCapped } from './body-reader.js';
import { assertUsableAttempt, fetchFailure, tooLarge } from './fetch-errors.js';
import { progressThrottle } from './fetch-progress.js';
import {
  type FetchBodyOptions,
  type PreparedFetch,
  postPrepared,
  prepareFetch,
} from './fetch-request.js';
import { attemptFailure, backoff, RetryableFailure, retryDelayMs } from './fetch-retry.js';

const NEWLINE = 10;

function upstream(origin: string, what: string): S2SPError {
  return new S2SPError(
    'upstream_error',
    `The resource server at ${origin} ${what} ${callResourceToolAgain}`,
  );
}

/**
 * Like {@link fetchBody}, but yields the rows one at a time as they arrive, so a large table
 * never sits in memory whole. It asks for NDJSON (`Accept: application/x-ndjson`, the PROTOCOL §7
 * extension) and still understands a plain JSON answer (the Python reference, and any
 * server without the extension), which it reads whole within `maxBytes` and then yields row by row.
 *
 * The same URL checks, redirect refusal, time limit (for the whole stream) and errors as
 * `fetchBody`; `maxBytes` bounds the bytes read in all, `maxRowBytes` each row. A stream that
 * ends early (fewer rows than the server's `S2SP-Total-Rows`) fails with `upstream_error`.
 * Stopping the iteration early (`break`) cancels the request; the token is used up either way.
 *
 * @param resourceUrl - the `resource_url` from a resource tool
 * @param options - row and column selection, limits, allow-list
 * @example
 * ```ts
 * for await (const row of fetchBodyRows(resourceUrl, { maxBytes: 2 ** 31 })) total += row.magnitude as number;
 * ```
 */
export async function* fetchBodyRows(
  resourceUrl: string,
  options: FetchBodyOptions = {},
): AsyncGenerator<RowWithId> {
  const prepared = prepareFetch(resourceUrl, options);
  const { target, timeoutMs, retries } = prepared;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const failure = (cause: unknown): S2SPError =>
    fetchFailure(cause, {
      cancelled: options.signal?.aborted === true,
      origin: target.origin,
      timeoutMs,
    });
  // Rows already yielded: a repeat (PROTOCOL §7.10) answers the same rows in the same order, so
  // those are skipped, and the last one skipped must be the last one yielded.
  let yielded = 0;
  let lastRowId = -1;
  try {
    for (let attempt = 0; ; attempt++) {
      let seen = 0;
      try {
        for await (const row of readAttempt(prepared, options, controller, failure)) {
          seen++;
          if (seen < yielded) continue;
          if (seen === yielded) {
            if (row._row_id !== lastRowId)
              throw upstream(target.origin, 'answered a retry with other rows than before.');
            continue;
          }
          yielded = seen;
          lastRowId = row._row_id;
          yield row;
        }
        if (seen < yielded)
          throw upstream(target.origin, 'answered a retry with fewer rows than before.');
        return;
      } catch (error) {
        if (!(error instanceof RetryableFailure)) throw error;
        if (attempt >= retries) throw error.failure;
        await backoff(retryDelayMs(attempt), controller.signal).catch((cause: unknown) => {
          throw failure(cause);
        });
      }
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

/**
 * One attempt of {@link fetchBodyRows}: its rows as they arrive. A broken connection, a cut body
 * or a 5xx fails with {@link RetryableFailure}; everything else with its `S2SPError`.
 */
async function* readAttempt(
  prepared: PreparedFetch,
  options: FetchBodyOptions,
  controller: AbortController,
  failure: (cause: unknown) => S2SPError,
): AsyncGenerator<RowWithId> {
  const { target, maxBytes, maxRowBytes } = prepared;
  const transport = (cause: unknown) => attemptFailure(cause, controller.signal.aborted, failure);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    let response: Response;
    try {
      if (options.signal?.aborted) throw options.signal.reason;
      response = await postPrepared(
        prepared,
        options,
        `${PROTOCOL.ndjsonMediaType}, application/json;q=0.5`,
        controller.signal,
      );
    } catch (cause) {
      throw transport(cause);
    }
    await assertUsableAttempt(response, target.origin);
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== PROTOCOL.ndjsonMediaType) {
      // A plain JSON answer: read it whole, within the limit, as fetchBody does.
      const progress = progressThrottle(options.onProgress);
      const bytes = await readBodyCapped(response, maxBytes, (read) =>
        progress.update(read, 0),
      ).catch((cause) => {
        throw transport(cause);
      });
      if (!bytes) throw tooLarge(maxBytes);
      const json = parseJsonText(new TextDecoder().decode(bytes), () =>
        upstream(target.origin, 'answered with something that is not JSON.'),
      );
      const parsed = DataPlaneResponseSchema.safeParse(json);
      if (!parsed.success)
        throw upstream(
          target.origin,
          `answered with an invalid data-plane response (${formatIssues(parsed.error)}).`,
        );
      progress.finish(bytes.byteLength, (json as { body: RowWithId[] }).body.length);
      yield* (json as { body: RowWithId[] }).body;
      return;
    }

    const declared = Number(response.headers.get(PROTOCOL.totalRowsHeader) ?? Number.NaN);
    reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let carry: Uint8Array[] = [];
    let carried = 0;
    let total = 0;
    let rows = 0;
    const progress = progressThrottle(options.onProgress);
    const parseLine = (line: Uint8Array): RowWithId => {
      let row: unknown;
      try {
        row = JSON.parse(decoder.decode(line));
      } catch {
        row = undefined;
      }
      if (!isPlainObject(row) || !Number.isSafeInteger(row._row_id) || (row._row_id as number) < 0)
        throw upstream(
          target.origin,
          `answered with a line that is not a row with an integer _row_id (line ${rows + 1}).`,
        );
      return row as RowWithId;
    };
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (cause) {
        throw transport(cause);
      }
      if (chunk.done) break;
      const bytes = chunk.value;
      progress.update(total, rows);
      total += bytes.byteLength;
      if (total > maxBytes) throw tooLarge(maxBytes);
      let start = 0;
      for (;;) {
        const end = bytes.indexOf(NEWLINE, start);
        if (end < 0) break;
        let line = bytes.subarray(start, end);
        if (carried > 0) {
          const joined = new Uint8Array(carried + line.byteLength);
          let at = 0;
          for (const piece of carry) {
            joined.set(piece, at);
            at += piece.byteLength;
          }
          joined.set(line, at);
          line = joined;
          carry = [];
          carried = 0;
        }
        if (line.byteLength > maxRowBytes) throw tooLarge(maxRowBytes);
        start = end + 1;
        if (line.byteLength === 0) continue;
        rows++;
        yield parseLine(line);
      }
      if (start < bytes.byteLength) {
        carried += bytes.byteLength - start;
        if (carried > maxRowBytes) throw tooLarge(maxRowBytes);
        carry.push(bytes.slice(start));
      }
    }
    // A body cut inside a row: the row is incomplete, and a repeat may bring it whole.
    const cut = Number.isSafeInteger(declared) && rows + (carried > 0 ? 1 : 0) !== declared;
    if (carried > 0) {
      if (cut)
        throw new RetryableFailure(
          upstream(
            target.origin,
            `sent ${rows} of the ${declared} rows it announced (the stream was cut).`,
          ),
        );
      rows++;
      const line = new Uint8Array(carried);
      let at = 0;
      for (const piece of carry) {
        line.set(piece, at);
        at += piece.byteLength;
      }
      yield parseLine(line);
    }
    if (Number.isSafeInteger(declared) && rows !== declared)
      throw new RetryableFailure(
        upstream(
          target.origin,
          `sent ${rows} of the ${declared} rows it announced (the stream was cut).`,
        ),
      );
    progress.finish(total, rows);
  } finally {
    // Stops the transfer when the caller stopped early or something failed.
    reader?.cancel().catch(() => {});
  }
}
