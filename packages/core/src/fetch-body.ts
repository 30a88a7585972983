import { readBodyCapped } from './body-reader.js';
import { type DataPlaneResponse, DataPlaneResponseSchema, formatIssues } from './data-plane.js';
import { S2SPError } from './errors.js';
import { parseJsonText } from './json.js';
import { positiveOption } from './limits.js';
import type { RowWithId } from './table.js';
import { parseResourceUrl } from './token.js';

/** Default time limit of a data-plane fetch: 30 s (PROTOCOL §4). */
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;

/** Default response size cap of a data-plane fetch: 64 MiB (PROTOCOL §4). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Options for {@link fetchBody}. */
export interface FetchBodyOptions {
  /** Rows to fetch by `_row_id`; omit for all rows. */
  readonly rowIds?: readonly number[];
  /** Columns to fetch; omit for all. `_row_id` always comes back. */
  readonly columns?: readonly string[];
  /** Time limit for the whole exchange, body included. Default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Largest response body accepted; a larger one is aborted as it streams. Default 64 MiB. */
  readonly maxBytes?: number;
  /** Cancels the fetch. */
  readonly signal?: AbortSignal;
  /**
   * Origins the URL may point at (`https://data.example.com`). Strongly recommended on servers:
   * the URL usually comes from an LLM, so without a list any reachable host can be asked.
   */
  readonly allowedOrigins?: readonly string[];
  /** The `fetch` to use (for a custom dispatcher or agent). Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
}

/** A validated data-plane response. */
export type FetchedBody = DataPlaneResponse & { body: RowWithId[] };

/** The advice that ends most fetch errors. */
export const CALL_AGAIN =
  'Call the resource tool again to get a fresh resource_url, then retry with it.';

/** The error of a response over the consumer's size limit. */
export function tooLarge(maxBytes: number): S2SPError {
  return new S2SPError(
    'payload_too_large',
    `The resource server's response is larger than this consumer's limit of ${maxBytes} bytes. Select fewer rows (filter the abstract rows first), or raise maxResponseBytes.`,
  );
}

// Error bodies of the resource server are never quoted: they come from a third party and would
// otherwise flow verbatim into an LLM's context. Each status gets our own sentence.
/**
 * The error for whatever a data-plane fetch threw: cancelled by the caller, timed out, or the
 * server unreachable (or gone midway). An `S2SPError` passes through.
 */
export function fetchFailure(
  cause: unknown,
  context: { cancelled: boolean; timedOut: boolean; origin: string; timeoutMs: number },
): S2SPError {
  if (S2SPError.isInstance(cause)) return cause;
  if (context.cancelled)
    return new S2SPError('upstream_error', 'The data-plane fetch was cancelled.', { cause });
  if (context.timedOut) {
    return new S2SPError(
      'timeout',
      `The resource server at ${context.origin} did not answer within ${context.timeoutMs} ms. Retry; if it keeps timing out, ${CALL_AGAIN.charAt(0).toLowerCase()}${CALL_AGAIN.slice(1)}`,
      { cause },
    );
  }
  return new S2SPError(
    'upstream_error',
    `Could not reach the resource server at ${context.origin}, or it broke off its answer. Check that it is running and reachable from this server, then retry.`,
    { cause },
  );
}

/** The error for a non-200 answer (never quoting the server's body). */
export function statusError(status: number, origin: string): S2SPError {
  if (status === 404) {
    return new S2SPError(
      'not_found',
      `The resource_url has expired or was already used (each one works once, for a limited time). ${CALL_AGAIN}`,
    );
  }
  if (status === 503) {
    return new S2SPError(
      'unavailable',
      `The resource server at ${origin} cannot serve data right now (HTTP 503). Retry in a moment; if it persists, ${CALL_AGAIN.charAt(0).toLowerCase()}${CALL_AGAIN.slice(1)}`,
    );
  }
  if (status >= 300 && status < 400) {
    return new S2SPError(
      'upstream_error',
      `The resource server at ${origin} answered with a redirect (HTTP ${status}). S2SP never follows redirects; use a resource_url that points at the data plane itself.`,
    );
  }
  return new S2SPError(
    'upstream_error',
    `The resource server at ${origin} refused the data-plane request (HTTP ${status}). ${CALL_AGAIN}`,
  );
}

/** A validated fetch: the parsed URL, the limits and the request body. */
export interface PreparedFetch {
  readonly target: ReturnType<typeof parseResourceUrl>;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** `{"row_ids":[…],"columns":[…]}` (each only when given), as JSON text. */
  readonly requestBody: string;
}

/**
 * The checks every data-plane fetch makes before a socket opens (PROTOCOL §4): the URL, the
 * limits, and the request body built from the selection. One copy for `fetchBody` and
 * `fetchBodyRows`.
 *
 * @throws S2SPError `invalid_request` (bad URL) or `invalid_config` (bad limits)
 */
export function prepareFetch(resourceUrl: string, options: FetchBodyOptions): PreparedFetch {
  const target = parseResourceUrl(
    resourceUrl,
    options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {},
  );
  const timeoutMs = positiveOption('timeoutMs', options.timeoutMs, DEFAULT_FETCH_TIMEOUT_MS);
  const maxBytes = positiveOption('maxBytes', options.maxBytes, DEFAULT_MAX_RESPONSE_BYTES, {
    integer: true,
  });
  const request: { row_ids?: readonly number[]; columns?: readonly string[] } = {};
  if (options.rowIds && options.rowIds.length > 0) request.row_ids = [...new Set(options.rowIds)];
  if (options.columns && options.columns.length > 0) request.columns = options.columns;
  return { target, timeoutMs, maxBytes, requestBody: JSON.stringify(request) };
}

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
 * @throws S2SPError `invalid_request` (bad URL), `not_found` (expired or used), `timeout`,
 *   `payload_too_large`, `unavailable` (503) or `upstream_error` (anything else)
 *
 * @example
 * ```ts
 * const { body } = await fetchBody(resourceUrl, { rowIds: [0, 2], allowedOrigins: ['https://data.example.com'] });
 * ```
 */
export async function fetchBody(
  resourceUrl: string,
  options: FetchBodyOptions = {},
): Promise<FetchedBody> {
  const { target, timeoutMs, maxBytes, requestBody } = prepareFetch(resourceUrl, options);

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const failure = (cause: unknown) =>
    fetchFailure(cause, {
      cancelled: options.signal?.aborted === true,
      timedOut: controller.signal.aborted,
      origin: target.origin,
      timeoutMs,
    });

  try {
    if (options.signal?.aborted) throw options.signal.reason;
    const response = await (options.fetch ?? globalThis.fetch)(target.href, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: requestBody,
      // Never follow: a redirect could point the request (and its token) anywhere.
      redirect: 'manual',
      signal: controller.signal,
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      throw statusError(response.status, target.origin);
    }
    const bytes = await readBodyCapped(response, maxBytes);
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
          `The resource server at ${target.origin} answered with something that is not JSON.`,
        ),
    );
    const parsed = DataPlaneResponseSchema.safeParse(json);
    if (!parsed.success) {
      throw new S2SPError(
        'upstream_error',
        `The resource server at ${target.origin} answered with an invalid data-plane response (${formatIssues(parsed.error)}).`,
      );
    }
    // Return the parsed JSON itself, not zod's copy: zod assigns loose members, which would turn
    // a "__proto__" column into a prototype.
    return json as FetchedBody;
  } catch (cause) {
    throw failure(cause);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
