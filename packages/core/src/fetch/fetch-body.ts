import { callResourceToolAgain } from '../advice/advice.js';
import { type DataPlaneResponse, DataPlaneResponseSchema } from '../data-plane.js';
import { S2SPError } from '../errors.js';
import { formatIssues, parseJsonText } from '../json.js';
import { readBodyCapped } from './body-reader.js';
import { assertUsableAttempt, fetchFailure, tooLarge } from './fetch-errors.js';
import { progressThrottle } from './fetch-progress.js';
import { type FetchBodyOptions, postPrepared, prepareFetch } from './fetch-request.js';
import { attemptFailure, withRetries } from './fetch-retry.js';

/**
 * Fetches body rows from a resource server's data plane (PROTOCOL §3–4), with every rule a
 * consumer must follow: the URL is validated before any socket opens (http(s), canonical,
 * `/s2sp/data/{token}`, optional origin allow-list) and rebuilt from its parsed parts; redirects
 * are never followed; the exchange is bounded in time and size.
 *
 * The token is single-use: a successful call consumes it.
 *
 * @param resourceUrl - the `resource_url` from a resource tool
 * @param options - row and column selection, limits, allow-list
 * @returns the validated response (`body`, plus `total_rows`, `columns_returned`,
 *   `missing_row_ids` when the server sends them)
 * @throws S2SPError `invalid_request` (bad URL), `not_found` (expired or used),
 *   `payload_too_large`, `unavailable` (503) or `upstream_error` (anything else, a time-out
 *   included: it reads as any other network failure, so no answer tells a closed port from a
 *   silent one)
 *
 * @example
 * ```ts
 * const { body } = await fetchBody(resourceUrl, { rowIds: [0, 2], allowedOrigins: ['https://data.example.com'] });
 * ```
 */
export async function fetchBody(
  resourceUrl: string,
  options: FetchBodyOptions = {},
): Promise<DataPlaneResponse> {
  const prepared = prepareFetch(resourceUrl, options);
  const { target, timeoutMs, maxBytes, retries } = prepared;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const failure = (cause: unknown) =>
    fetchFailure(cause, {
      cancelled: options.signal?.aborted === true,
      origin: target.origin,
      timeoutMs,
    });
  // A broken connection or a cut body may be retried; what the caller stopped may not.
  const transport = (cause: unknown) => attemptFailure(cause, controller.signal.aborted, failure);

  // One throttle for every attempt: what it reports only ever increases, as MCP progress must.
  const progress = progressThrottle(options.onProgress);
  const attempt = async (): Promise<DataPlaneResponse> => {
    if (options.signal?.aborted) throw failure(options.signal.reason);
    let response: Response;
    let bytes: Uint8Array | undefined;
    try {
      response = await postPrepared(prepared, options, 'application/json', controller.signal);
    } catch (cause) {
      throw transport(cause);
    }
    await assertUsableAttempt(response, target.origin);
    try {
      bytes = await readBodyCapped(response, maxBytes, (read) => progress.update(read, 0));
    } catch (cause) {
      throw transport(cause);
    }
    if (!bytes) {
      controller.abort();
      throw tooLarge(maxBytes);
    }
    const text = new TextDecoder().decode(bytes);
    const json = parseJsonText(
      text,
      () =>
        new S2SPError(
          'upstream_error',
          `The resource server at ${target.origin} answered with something that is not JSON. ${callResourceToolAgain}`,
        ),
    );
    const parsed = DataPlaneResponseSchema.safeParse(json);
    if (!parsed.success) {
      throw new S2SPError(
        'upstream_error',
        `The resource server at ${target.origin} answered with an invalid data-plane response (${formatIssues(parsed.error)}). ${callResourceToolAgain}`,
      );
    }
    progress.finish(bytes.byteLength, (json as DataPlaneResponse).body.length);
    // Return the parsed JSON itself, not zod's copy: zod assigns loose members, which would turn
    // a "__proto__" column into a prototype.
    return json as DataPlaneResponse;
  };

  try {
    return await withRetries(retries, controller.signal, attempt, failure);
  } catch (cause) {
    throw failure(cause);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
