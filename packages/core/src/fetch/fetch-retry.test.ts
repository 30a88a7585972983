import { describe, expect, it } from 'vitest';
import { S2SPError } from '../errors.js';
import {
  attemptFailure,
  backoff,
  newIdempotencyKey,
  RetryableFailure,
  retryDelayMs,
  withRetries,
} from './fetch-retry.js';

const failure = (cause: unknown) =>
  S2SPError.isInstance(cause) ? cause : new S2SPError('upstream_error', 'network');

describe('retryDelayMs', () => {
  it('doubles its ceiling each retry, up to 1 s, and never goes below 0', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((attempt) => retryDelayMs(attempt, () => 0.999999))).toEqual([
      49, 99, 199, 399, 799, 999, 999,
    ]);
    expect(retryDelayMs(3, () => 0)).toBe(0);
  });
});

describe('newIdempotencyKey', () => {
  it('is 256 random bits in base64url, new each time', () => {
    const [a, b] = [newIdempotencyKey(), newIdempotencyKey()];
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
  });
});

describe('attemptFailure', () => {
  it('makes a network failure retryable, and not what the caller stopped or an S2SPError', () => {
    const network = attemptFailure(new TypeError('fetch failed'), false, failure);
    expect(network instanceof RetryableFailure && network.failure.code).toBe('upstream_error');
    expect(attemptFailure(new TypeError('aborted'), true, failure)).toBeInstanceOf(S2SPError);
    const own = new S2SPError('payload_too_large', 'big');
    expect(attemptFailure(own, false, failure)).toBe(own);
  });
});

describe('withRetries', () => {
  const controller = () => new AbortController();

  it('tries again while the failure is retryable, up to the limit, and reports the last one', async () => {
    let calls = 0;
    const error = await withRetries(
      2,
      controller().signal,
      async () => {
        calls++;
        throw new RetryableFailure(new S2SPError('unavailable', `attempt ${calls}`));
      },
      failure,
    ).catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect(S2SPError.isInstance(error) && [error.code, error.message]).toEqual([
      'unavailable',
      'attempt 3',
    ]);
  });

  it('returns the first success', async () => {
    let calls = 0;
    const value = await withRetries(
      3,
      controller().signal,
      async () => {
        calls++;
        if (calls < 3) throw new RetryableFailure(new S2SPError('upstream_error', 'cut'));
        return 'rows';
      },
      failure,
    );
    expect([value, calls]).toEqual(['rows', 3]);
  });

  it('never retries a final failure, nor with retries 0', async () => {
    for (const [retries, thrown] of [
      [3, new S2SPError('not_found', 'gone')],
      [0, new RetryableFailure(new S2SPError('upstream_error', 'cut'))],
    ] as const) {
      let calls = 0;
      const error = await withRetries(
        retries,
        controller().signal,
        async () => {
          calls++;
          throw thrown;
        },
        failure,
      ).catch((e: unknown) => e);
      expect(calls).toBe(1);
      expect(S2SPError.isInstance(error)).toBe(true);
    }
  });

  it('stops waiting when the signal aborts', async () => {
    const abort = controller();
    abort.abort(new Error('cancelled'));
    await expect(backoff(10_000, abort.signal)).rejects.toThrow('cancelled');
    let calls = 0;
    const error = await withRetries(
      5,
      abort.signal,
      async () => {
        calls++;
        throw new RetryableFailure(new S2SPError('upstream_error', 'cut'));
      },
      failure,
    ).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(S2SPError.isInstance(error) && error.code).toBe('upstream_error');
  });
});
