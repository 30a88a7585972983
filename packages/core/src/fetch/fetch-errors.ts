/**
 * How a data-plane fetch fails, shared by `fetchBody` and `fetchBodyRows`: the answers a consumer
 * refuses and the one model-facing error of each failure.
 *
 * @module
 */
import {
  callResourceToolAgain,
  operatorMust,
  resourceUrlGone,
  retryThenCallAgain,
  selectFewerRows,
  useDataPlaneUrl,
} from '../advice/advice.js';
import { S2SPError } from '../errors.js';
import { RetryableFailure } from './fetch-retry.js';

/** The error of a response over the consumer's size limit. */
export function tooLarge(maxBytes: number): S2SPError {
  return new S2SPError(
    'payload_too_large',
    `The resource server's answer is over this consumer's ${maxBytes}-byte limit. ${selectFewerRows}`,
  );
}

/**
 * The error for whatever a data-plane fetch threw: cancelled by the caller, or any network-level
 * failure. Refused connections, resets, DNS and TLS failures, unparseable HTTP and time-outs all
 * get one code and one sentence, so the tool's answer cannot tell a closed port from an open
 * one that speaks another protocol or never answers (a port scanner through the consumer). An
 * `S2SPError` passes through.
 */
export function fetchFailure(
  cause: unknown,
  context: { cancelled: boolean; origin: string; timeoutMs: number },
): S2SPError {
  if (S2SPError.isInstance(cause)) return cause;
  if (context.cancelled)
    return new S2SPError('upstream_error', 'The data-plane fetch was cancelled.', { cause });
  return networkFailure(context.origin, context.timeoutMs, cause);
}

/**
 * The one error of every network-level failure of a data-plane fetch (see {@link fetchFailure}).
 *
 * @param origin - the resource server's origin
 * @param timeoutMs - the fetch's time limit
 * @param cause - kept for logs, never shown
 */
function networkFailure(origin: string, timeoutMs: number, cause?: unknown): S2SPError {
  return new S2SPError(
    'upstream_error',
    `The resource server at ${origin} was unreachable or did not answer within ${timeoutMs} ms. ${retryThenCallAgain}`,
    cause === undefined ? {} : { cause },
  );
}

/**
 * Refuses a compressed answer. The consumer asks for `Accept-Encoding: identity`, and its size
 * limit counts the bytes on the wire: a 1 MiB gzip body can inflate to 1 GiB, so a compressed
 * answer is refused before its body is read.
 *
 * @param response - the 200 response
 * @param origin - the resource server's origin
 * @throws S2SPError `upstream_error`
 */
function assertIdentityEncoding(response: Response, origin: string): void {
  const encoding = (response.headers.get('content-encoding') ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return;
  throw new S2SPError(
    'upstream_error',
    `The resource server at ${origin} compressed its answer (${JSON.stringify(encoding.slice(0, 20))}); S2SP consumers refuse that. ${operatorMust('serve /s2sp/data responses uncompressed')}`,
  );
}

/**
 * Refuses a data-plane answer that is not a 200 or is compressed, cancelling its body unread (so
 * nothing of a refused answer is read).
 *
 * @throws S2SPError from {@link statusError} or {@link assertIdentityEncoding}
 */
async function assertUsableResponse(response: Response, origin: string): Promise<void> {
  try {
    if (response.status !== 200) throw statusError(response.status, origin);
    assertIdentityEncoding(response, origin);
  } catch (error) {
    await response.body?.cancel().catch(() => {});
    throw error;
  }
}

// Error bodies of the resource server are never quoted: they come from a third party and would
// otherwise flow verbatim into an LLM's context. Each status gets our own sentence.
/** The error for a non-200 answer (never quoting the server's body). */
function statusError(status: number, origin: string): S2SPError {
  if (status === 404) {
    return new S2SPError('not_found', resourceUrlGone);
  }
  if (status === 503) {
    return new S2SPError(
      'unavailable',
      `The resource server at ${origin} cannot serve data right now (HTTP 503). ${retryThenCallAgain}`,
    );
  }
  if (status >= 300 && status < 400) {
    return new S2SPError(
      'upstream_error',
      `The resource server at ${origin} redirected (HTTP ${status}), which S2SP never follows. ${useDataPlaneUrl}`,
    );
  }
  return new S2SPError(
    'upstream_error',
    `The resource server at ${origin} refused the data-plane request (HTTP ${status}). ${callResourceToolAgain}`,
  );
}

/**
 * Refuses a 5xx answer as {@link assertUsableResponse} does, but as a failure a retry may cure
 * (it came before any body, and the data plane leaves a token it could not serve unused, or
 * repeats its answer to the same `Idempotency-Key`).
 *
 * @throws RetryableFailure for a 5xx, else what {@link assertUsableResponse} throws
 */
export async function assertUsableAttempt(response: Response, origin: string): Promise<void> {
  if (response.status >= 500 && response.status < 600) {
    await response.body?.cancel().catch(() => {});
    throw new RetryableFailure(statusError(response.status, origin));
  }
  await assertUsableResponse(response, origin);
}
