import { z } from 'zod';
import {
  callResourceToolAgain,
  operatorMust,
  resourceUrlGone,
  retryThenCallAgain,
  selectFewerRows,
  useDataPlaneUrl,
} from './advice/advice.js';
import { readBodyCapped } from './body-reader.js';
import { type DataPlaneResponse, DataPlaneResponseSchema } from './data-plane.js';
import { assertPublicDestination } from './destination.js';
import { S2SPError } from './errors.js';
import { type FetchProgress, progressThrottle } from './fetch-progress.js';
import {
  attemptFailure,
  DEFAULT_FETCH_RETRIES,
  newIdempotencyKey,
  RetryableFailure,
  withRetries,
} from './fetch-retry.js';
import { formatIssues, parseJsonText } from './json.js';
import { byteSize, positiveInteger, positiveNumber } from './options/option-kinds.js';
import { parseOptions } from './options/parse-options.js';
import { PROTOCOL } from './protocol.js';
import { parseResourceUrl } from './token.js';

/** Default time limit of a data-plane fetch: 30 s (PROTOCOL §4). */
const DEFAULT_FETCH_TIMEOUT_MS = 30_000;

/** Default response size cap of a data-plane fetch: 64 MiB (PROTOCOL §4). */
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The limits among {@link FetchBodyOptions}: their one rule and default, for `fetchBody`,
 * `fetchBodyRows` and every consumer built on them. The selection, allow-list and `fetch` are
 * checked where they are used (`parseResourceUrl`).
 */
export const FetchBodyLimitsSchema = z.object({
  timeoutMs: positiveNumber()
    .default(DEFAULT_FETCH_TIMEOUT_MS)
    .meta({ type: 'ms', description: 'Time limit for the whole exchange, body included.' }),
  maxBytes: byteSize()
    .default(DEFAULT_MAX_RESPONSE_BYTES)
    .describe('Largest response body accepted; a larger one is aborted as it streams.'),
  maxRowBytes: byteSize()
    .default(16 * 1024 * 1024)
    .describe('fetchBodyRows only: the largest single row accepted.'),
  retries: positiveInteger({ min: 0, max: 10 })
    .default(DEFAULT_FETCH_RETRIES)
    .describe(
      'Times to try again, with an Idempotency-Key (PROTOCOL §7.10), after a broken connection, a cut body or a 5xx; 0 sends no key and never retries.',
    ),
});

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
   * the URL usually comes from an LLM. An entry may carry a path prefix
   * (`https://gateway.example.com/weather`) under which that origin's resource_urls live. Listed
   * origins are fetched whatever their address (loopback included).
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Path prefixes allowed before `/s2sp/data/{token}` on any origin. Default none: the path must
   * be exactly `/s2sp/data/{token}` at the origin root (or under an `allowedOrigins` entry's
   * prefix).
   */
  readonly pathPrefixes?: readonly string[];
  /**
   * Without an allow-list: `'public'` (the default) refuses IP literals that are not
   * public and local-only names before any socket opens; `'any'` does not. Names that resolve to
   * private addresses need a fetch that checks resolved addresses (`createPublicOnlyFetch` in
   * `@s2sp/core/node`, the default of `@s2sp/server` consumer tools).
   */
  readonly destinations?: 'public' | 'any';
  /** The `fetch` to use (for a custom dispatcher or agent). Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /**
   * Called as the body arrives — at most every 250 ms or every MiB, with bytes increasing — and
   * once at the end (`done: true`) with the final bytes and rows: for a progress line or MCP
   * progress notifications during a large fetch. Not called when the fetch fails.
   */
  readonly onProgress?: (progress: FetchProgress) => void;
  /**
   * {@link fetchBodyRows} only: the largest single row accepted, in bytes. Default 16 MiB. Rows
   * are parsed one at a time, so memory follows this, not `maxBytes`.
   */
  readonly maxRowBytes?: number;
  /**
   * Extra request headers, such as W3C Trace Context's `traceparent` (the server's consumer tools
   * send it when OpenTelemetry is on). They cannot replace the headers the protocol fixes
   * (`Content-Type`, `Accept`, `Accept-Encoding`).
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * How many times to try again when an attempt fails in a way a repeat can cure: the
   * connection broke (before or during the body), the body was cut short, or the server answered
   * 5xx. Each attempt sends the same random `Idempotency-Key` (PROTOCOL §7.10), so a data plane
   * with the extension answers a repeat with the same rows even though the first attempt used
   * the token; one without it answers 404 as for any used token. Never retried: 4xx answers,
   * invalid answers, `signal`, and `timeoutMs` (which bounds all attempts together). Waits
   * between attempts with exponential backoff and jitter (up to 50, 100, 200… ms, at most 1 s).
   * Default 3; 0 sends no key and tries once.
   */
  readonly retries?: number;
}

/** The error of a response over the consumer's size limit. */
export function tooLarge(maxBytes: number): S2SPError {
  return new S2SPError(
    'payload_too_large',
    `The resource server's answer is over this consumer's ${maxBytes}-byte limit. ${selectFewerRows}`,
  );
}

// Error bodies of the resource server are never quoted: they come from a third party and would
// otherwise flow verbatim into an LLM's context. Each status gets our own sentence.
/**
 * The error for whatever a data-plane fetch threw: cancelled by the caller, or any network-level
 * failure. Refused connections, resets, DNS and TLS failures, unparseable HTTP and time-outs all
 * get one code and one sentence, so the tool's answer cannot tell a closed port from an open
 * one that speaks another protocol or never answers (a port scanner through the consumer). An
 * `S2SPError` passes through.
 */
export function fetchFailure(
  cause: unknown,
  context: { cancelled: boolean; timedOut: boolean; origin: string; timeoutMs: number },
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
export function networkFailure(origin: string, timeoutMs: number, cause?: unknown): S2SPError {
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
export function assertIdentityEncoding(response: Response, origin: string): void {
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
export async function assertUsableResponse(response: Response, origin: string): Promise<void> {
  try {
    if (response.status !== 200) throw statusError(response.status, origin);
    assertIdentityEncoding(response, origin);
  } catch (error) {
    await response.body?.cancel().catch(() => {});
    throw error;
  }
}

/** Request headers every data-plane fetch sends besides `Accept`. */
export const FETCH_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  'accept-encoding': 'identity',
});

/**
 * The headers of a data-plane request: the caller's extra ones (lower-cased; any that would
 * replace a fixed one are dropped), then the fixed ones ({@link FETCH_HEADERS}, and the
 * `Idempotency-Key` of a fetch that retries) and `Accept`.
 */
export function requestHeaders(
  extra: Readonly<Record<string, string>> | undefined,
  fixed: Readonly<Record<string, string>>,
  accept: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(extra ?? {})) headers[name.toLowerCase()] = value;
  return { ...headers, ...fixed, accept };
}

/** The error for a non-200 answer (never quoting the server's body). */
export function statusError(status: number, origin: string): S2SPError {
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

/** A validated fetch: the parsed URL, the limits and the request body. */
export interface PreparedFetch {
  readonly target: ReturnType<typeof parseResourceUrl>;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** The largest single row `fetchBodyRows` accepts. */
  readonly maxRowBytes: number;
  /** `{"row_ids":[…],"columns":[…]}` (each only when given), as JSON text. */
  readonly requestBody: string;
  /** How many times to try again (see {@link FetchBodyOptions.retries}). */
  readonly retries: number;
  /**
   * Headers every attempt sends besides `Accept`: {@link FETCH_HEADERS}, and the
   * `Idempotency-Key` when `retries` is above 0.
   */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The checks every data-plane fetch makes before a socket opens (PROTOCOL §4): the URL, the
 * limits, and the request body built from the selection. One copy for `fetchBody` and
 * `fetchBodyRows`.
 *
 * @throws S2SPError `invalid_request` (bad URL) or `invalid_config` (bad limits)
 */
export function prepareFetch(resourceUrl: string, options: FetchBodyOptions): PreparedFetch {
  const target = parseResourceUrl(resourceUrl, {
    ...(options.allowedOrigins && { allowedOrigins: options.allowedOrigins }),
    ...(options.pathPrefixes && { pathPrefixes: options.pathPrefixes }),
  });
  // An allow-listed origin is trusted whatever its address; without a list, public only.
  if (!options.allowedOrigins)
    assertPublicDestination(new URL(target.origin).hostname, options.destinations ?? 'public');
  const { timeoutMs, maxBytes, maxRowBytes, retries } = parseOptions(
    FetchBodyLimitsSchema,
    {
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes,
      maxRowBytes: options.maxRowBytes,
      retries: options.retries,
    },
    { factory: 'fetchBody' },
  );
  const request: { row_ids?: readonly number[]; columns?: readonly string[] } = {};
  if (options.rowIds && options.rowIds.length > 0) request.row_ids = [...new Set(options.rowIds)];
  if (options.columns && options.columns.length > 0) request.columns = options.columns;
  // One key for every attempt of this fetch: that is what lets the data plane repeat its answer.
  const headers =
    retries > 0
      ? { ...FETCH_HEADERS, [PROTOCOL.idempotencyKeyHeader]: newIdempotencyKey() }
      : FETCH_HEADERS;
  return {
    target,
    timeoutMs,
    maxBytes,
    maxRowBytes,
    requestBody: JSON.stringify(request),
    retries,
    headers,
  };
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
): Promise<DataPlaneResponse> {
  const { target, timeoutMs, maxBytes, requestBody, retries, headers } = prepareFetch(
    resourceUrl,
    options,
  );

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
  // A broken connection or a cut body may be retried; what the caller stopped may not.
  const transport = (cause: unknown) => attemptFailure(cause, controller.signal.aborted, failure);

  // One throttle for every attempt: what it reports only ever increases, as MCP progress must.
  const progress = progressThrottle(options.onProgress);
  const attempt = async (): Promise<DataPlaneResponse> => {
    if (options.signal?.aborted) throw failure(options.signal.reason);
    let response: Response;
    let bytes: Uint8Array | undefined;
    try {
      response = await (options.fetch ?? globalThis.fetch)(target.href, {
        method: 'POST',
        headers: requestHeaders(options.headers, headers, 'application/json'),
        body: requestBody,
        // Never follow: a redirect could point the request (and its token) anywhere.
        redirect: 'manual',
        signal: controller.signal,
      });
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
