/** Plain HTTP helpers for data-plane requests from the test process. */
import { since } from './stats.js';

/** A data-plane answer, kept byte for byte. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  /** Round trip in ms. */
  readonly ms: number;
}

/**
 * POSTs a data-plane request and reads the whole answer. Never waits longer than `timeoutMs`:
 * a hang fails here, with a clear error, instead of at the test timeout.
 *
 * @param url - `…/s2sp/data/{token}`
 * @param body - the JSON request body (default `{}`)
 * @param timeoutMs - abort after this long
 */
export async function redeem(url: string, body: unknown = {}, timeoutMs = 15_000): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text, ms: since(started) };
}

/** A data-plane URL for `token` at the replica listening on `base`. */
export function dataUrl(base: string, token: string): string {
  return `${base}/s2sp/data/${token}`;
}

/** Counts statuses: `{ 200: 1, 404: 149 }`. */
export function countStatuses(answers: readonly { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
