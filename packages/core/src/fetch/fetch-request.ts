/**
 * The request side of a data-plane fetch, shared by `fetchBody` and `fetchBodyRows`: their
 * options, the limits' one rule, and what is checked and built before a socket opens (PROTOCOL
 * §4).
 *
 * @module
 */
import { z } from 'zod';
import { byteSize, positiveInteger, positiveNumber } from '../options/option-kinds.js';
import { parseOptions } from '../options/parse-options.js';
import { PROTOCOL } from '../protocol.js';
import { parseResourceUrl } from '../token.js';
import { assertPublicDestination } from './destination.js';
import type { FetchProgress } from './fetch-progress.js';
import { DEFAULT_FETCH_RETRIES, newIdempotencyKey } from './fetch-retry.js';

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

/** Request headers every data-plane fetch sends besides `Accept`. */
const FETCH_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  'accept-encoding': 'identity',
});

/**
 * The headers of a data-plane request: the caller's extra ones (lower-cased; any that would
 * replace a fixed one are dropped), then the fixed ones ({@link FETCH_HEADERS}, and the
 * `Idempotency-Key` of a fetch that retries) and `Accept`.
 */
function requestHeaders(
  extra: Readonly<Record<string, string>> | undefined,
  fixed: Readonly<Record<string, string>>,
  accept: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(extra ?? {})) headers[name.toLowerCase()] = value;
  return { ...headers, ...fixed, accept };
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
 * Sends one attempt of a prepared fetch: a POST of its request body with its headers and the
 * caller's, asking for `accept`. Redirects are never followed: one could point the request (and
 * its token) anywhere. One copy for `fetchBody` and `fetchBodyRows`.
 *
 * @param prepared - from {@link prepareFetch}
 * @param options - the caller's extra headers and `fetch`
 * @param accept - the `Accept` header
 * @param signal - aborts the attempt (the fetch's time limit)
 */
export function postPrepared(
  prepared: PreparedFetch,
  options: Pick<FetchBodyOptions, 'headers' | 'fetch'>,
  accept: string,
  signal: AbortSignal,
): Promise<Response> {
  return (options.fetch ?? globalThis.fetch)(prepared.target.href, {
    method: 'POST',
    headers: requestHeaders(options.headers, prepared.headers, accept),
    body: prepared.requestBody,
    redirect: 'manual',
    signal,
  });
}
