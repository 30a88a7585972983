/**
 * Retrying a data-plane fetch (PROTOCOL §7.10, retry-safe redemption): `fetchBody` and
 * `fetchBodyRows` send an `Idempotency-Key` and try again, with the same key and the same
 * request, when an attempt failed in a way a repeat can cure — the connection broke, the body
 * was cut, or a 5xx came before any body. A data plane with the extension answers the repeat
 * with the same rows; one without it answers 404, as for any used token, so a retry never does
 * worse than the failure it replaces. Never retried: a 4xx, a bad answer, the caller's cancel,
 * the time limit (which bounds all attempts together).
 *
 * @module
 */

import { S2SPError } from '../errors.js';
import { generateToken } from '../token.js';

/** Default of `FetchBodyOptions.retries`. */
export const DEFAULT_FETCH_RETRIES = 3;

/** The first backoff's ceiling, in ms; each retry doubles it, up to {@link MAX_BACKOFF_MS}. */
const BASE_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1000;

/** A failed attempt that a repeat with the same key may cure; `failure` is what to report. */
export class RetryableFailure extends Error {
  constructor(readonly failure: S2SPError) {
    super(failure.message);
    this.name = 'RetryableFailure';
  }
}

/**
 * A new `Idempotency-Key`: 256 random bits in base64url, like a token (the key lets its holder
 * read the rows again for the grace window, so it is as unguessable as the token).
 */
export function newIdempotencyKey(): string {
  return generateToken();
}

/**
 * How long to wait before retry number `attempt + 1`: "full jitter" (a random time up to a
 * ceiling that doubles each time), so consumers cut off together do not come back together.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt));
}

/** Waits `ms`, or until `signal` aborts (then throws its reason). */
export function backoff(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const done = () => {
      signal.removeEventListener('abort', stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/**
 * What an attempt's failure becomes: retryable when nothing the caller controls stopped it (the
 * connection broke or the body was cut), else final.
 *
 * @param cause - what the attempt threw
 * @param stopped - the attempt's signal aborted (the caller's cancel or the time limit)
 * @param failure - maps the cause to the error to report
 */
export function attemptFailure(
  cause: unknown,
  stopped: boolean,
  failure: (cause: unknown) => S2SPError,
): Error {
  if (cause instanceof RetryableFailure) return cause;
  const error = failure(cause);
  return stopped || S2SPError.isInstance(cause) ? error : new RetryableFailure(error);
}

/**
 * Runs `attempt` up to `1 + retries` times, waiting {@link retryDelayMs} between, while the
 * failure is a {@link RetryableFailure}; reports the last failure as its `S2SPError`.
 *
 * @param retries - how many times to try again (0: once only)
 * @param signal - stops the waiting (the caller's cancel or the time limit)
 * @param attempt - one try, given its number from 0
 * @param failure - maps what stopped the waiting to the error to report
 */
export async function withRetries<T>(
  retries: number,
  signal: AbortSignal,
  attempt: (index: number) => Promise<T>,
  failure: (cause: unknown) => S2SPError,
): Promise<T> {
  for (let index = 0; ; index++) {
    try {
      return await attempt(index);
    } catch (error) {
      if (!(error instanceof RetryableFailure)) throw error;
      if (index >= retries) throw error.failure;
      await backoff(retryDelayMs(index), signal).catch((cause: unknown) => {
        throw failure(cause);
      });
    }
  }
}
