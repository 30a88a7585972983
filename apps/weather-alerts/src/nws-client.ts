/**
 * A polite, robust client for the NWS API (`https://api.weather.gov`): it identifies itself with a
 * `User-Agent` (NWS requires one), times out, retries 429/5xx a bounded number of times honouring
 * `Retry-After`, turns problem+json errors into readable errors, and serves repeated requests from
 * a short-lived cache so that a burst of identical tool calls makes one upstream request.
 *
 * @module
 */

import { type Row, readBodyCapped } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import {
  byteSize,
  httpUrl,
  parseOptions,
  positiveInteger,
  positiveNumber,
} from '@s2sp/core/options';
import { type Logger, silentLogger } from '@s2sp/server';
import { z } from 'zod';
import { type Coordinates, formatPoint } from './coordinates.js';
import { describeProblem, NwsError, parseProblem } from './nws-error.js';
import { createResponseCache } from './response-cache.js';
import { parseRetryAfter } from './retry-after.js';

/** The public NWS API. */
export const NWS_API_URL = 'https://api.weather.gov';

/** Sent when no `userAgent` is configured. NWS asks for a way to contact the operator. */
export const DEFAULT_NWS_USER_AGENT =
  's2sp-weather-alerts/0.1 (+https://github.com/s2sp/s2sp-typescript)';

/** Options for {@link createNwsClient}. */
export interface NwsClientOptions {
  /**
   * Base URL of the NWS API. Default `https://api.weather.gov`. Point it at a replay server or a
   * proxy (a path prefix is kept: `http://proxy.internal/nws`).
   */
  readonly baseUrl?: string;
  /** `User-Agent` header; include contact details (`myapp/1.0 (ops@example.com)`). */
  readonly userAgent?: string;
  /** Time allowed for one attempt, headers and body. Default 10 000 ms. */
  readonly timeoutMs?: number;
  /** Retries after a 429, a 5xx or a failed connection. Default 2. Timeouts are not retried. */
  readonly maxRetries?: number;
  /** Backoff before retry `n` (from 0) when NWS gives no `Retry-After`: `retryDelayMs * 2^n`. Default 500. */
  readonly retryDelayMs?: number;
  /**
   * The longest `Retry-After` this client waits for. A longer one fails at once with a
   * rate-limit error: waiting less than NWS asked would only earn another 429. Default 5000 ms.
   */
  readonly maxRetryAfterMs?: number;
  /** How long a successful response is reused. Default 60 000 ms; 0 turns the cache off. */
  readonly cacheTtlMs?: number;
  /** Most responses cached. Default 200. */
  readonly cacheMaxEntries?: number;
  /** Largest response body read. Default 32 MiB (the national alert list is a few MiB). */
  readonly maxResponseBytes?: number;
  /** Where request logs go (debug: every request; warn: retries). Default: nowhere. */
  readonly logger?: Logger;
  /** How the client waits between attempts. Default a timer; tests pass a recorder. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** An NWS alert feature, as far as this app relies on its shape. */
export interface NwsAlertFeature {
  readonly id?: unknown;
  readonly properties: Row;
}

/** Which active alerts to ask for. */
export type ActiveAlertsQuery = { readonly area: string } | { readonly point: Coordinates };

/** A client created by {@link createNwsClient}. */
export interface NwsClient {
  /** The normalised base URL, without a trailing slash. */
  readonly baseUrl: string;
  /**
   * GETs JSON from the API.
   *
   * @param target - a path (`/alerts/active?area=TX`) or an absolute link from an NWS response
   *   (followed only when it is on the base URL; `https://api.weather.gov` links are rewritten to it)
   * @throws NwsError
   */
  getJson(target: string): Promise<unknown>;
  /**
   * `GET /alerts/active?area=…` or `?point=…`: the features of the active alerts.
   * @throws NwsError
   */
  getActiveAlerts(query: ActiveAlertsQuery): Promise<NwsAlertFeature[]>;
  /**
   * `GET /points/{lat},{lon}`: the point's `properties` (forecast office, grid, forecast links).
   * @throws NwsError — a 404 means NWS has no data for the point (it covers US locations only)
   */
  getPoint(point: Coordinates): Promise<Row>;
  /**
   * The forecast periods for a point: `/points/{lat},{lon}`, then its `forecast` link.
   * @throws NwsError
   */
  getForecastPeriods(point: Coordinates): Promise<Row[]>;
  /** Responses currently cached. */
  cachedResponses(): number;
}

/**
 * The options of {@link createNwsClient}: each one's rule and default, checked once with
 * `parseOptions` like every S2SP factory's (an `invalid_config` error names the option).
 */
export const NwsClientOptionsSchema = z.object({
  baseUrl: httpUrl().default(NWS_API_URL),
  userAgent: z
    .string()
    .regex(/^[\x20-\x7e]*[\x21-\x7e][\x20-\x7e]*$/)
    .default(DEFAULT_NWS_USER_AGENT)
    .meta({
      allowed:
        'printable ASCII (it is sent as an HTTP header), such as "my-alerts/1.0 (ops@example.com)"',
    }),
  timeoutMs: positiveNumber().default(10_000),
  maxRetries: positiveInteger({ min: 0 }).default(2),
  retryDelayMs: positiveNumber({ min: 0 }).default(500),
  maxRetryAfterMs: positiveNumber({ min: 0 }).default(5_000),
  cacheTtlMs: positiveNumber({ min: 0 }).default(60_000),
  cacheMaxEntries: positiveInteger().default(200),
  maxResponseBytes: byteSize().default(32 * 1024 * 1024),
  logger: z.custom<Logger>((value) => typeof value === 'object' && value !== null).optional(),
  sleep: z.custom<(ms: number) => Promise<void>>((value) => typeof value === 'function').optional(),
} satisfies Record<keyof NwsClientOptions, z.ZodType>);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** The innermost cause's code or message: undici wraps `ECONNREFUSED` in "fetch failed". */
function networkReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5; depth++) {
    if (!(current instanceof Error)) break;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (current.cause === undefined) return current.message;
    current = current.cause;
  }
  return String(current);
}

async function readText(response: Response, maxBytes: number): Promise<string> {
  const bytes = await readBodyCapped(response, maxBytes);
  if (bytes === undefined)
    throw new NwsError(
      'invalid_response',
      `NWS sent more than the ${maxBytes} bytes this server reads.`,
    );
  return new TextDecoder().decode(bytes);
}

/**
 * Creates an NWS API client.
 *
 * @param options - base URL, User-Agent, timeout, retries and cache
 * @throws S2SPError `invalid_config` naming the first option that cannot work
 *
 * @example
 * ```ts
 * const nws = createNwsClient({ userAgent: 'my-alerts/1.0 (ops@example.com)' });
 * const features = await nws.getActiveAlerts({ area: 'TX' });
 * ```
 */
export function createNwsClient(options: NwsClientOptions = {}): NwsClient {
  const {
    baseUrl,
    userAgent,
    timeoutMs,
    maxRetries,
    retryDelayMs,
    maxRetryAfterMs,
    maxResponseBytes,
    ...parsed
  } = parseOptions(NwsClientOptionsSchema, options, { factory: 'createNwsClient' });
  const logger = parsed.logger ?? silentLogger;
  const sleep = parsed.sleep ?? defaultSleep;
  const cache = createResponseCache<string>({
    ttlMs: parsed.cacheTtlMs,
    maxEntries: parsed.cacheMaxEntries,
  });

  /** Where a target lives, or a `forbidden_link` error for a link off the base URL. */
  const resolve = (target: string): string => {
    if (target.startsWith('/')) return `${baseUrl}${target}`;
    let href: string;
    try {
      href = new URL(target).href;
    } catch {
      throw new NwsError('forbidden_link', `NWS returned a link that is not a URL: "${target}".`);
    }
    if (href.startsWith(`${baseUrl}/`)) return href;
    // Recorded or proxied responses carry the canonical links; keep them on the configured API.
    if (href.startsWith(`${NWS_API_URL}/`)) return `${baseUrl}${href.slice(NWS_API_URL.length)}`;
    // The link came from a response body: following it anywhere would let whoever controls that
    // body make this server fetch arbitrary URLs.
    throw new NwsError(
      'forbidden_link',
      `NWS returned a link to ${new URL(href).origin}, which is not the configured NWS API (${baseUrl}); it was not followed.`,
    );
  };

  /** The target for messages: the path and query, never a long absolute URL. */
  const label = (url: string) => url.slice(baseUrl.length) || '/';

  const failure = (url: string, status: number, statusText: string, body: string): NwsError => {
    const problem = parseProblem(body);
    const said = describeProblem(problem, statusText || `HTTP ${status}`);
    const where = label(url);
    let message: string;
    if (status === 429) {
      message = `NWS is rate-limiting this server (HTTP 429) for ${where}: ${said}. Wait a minute and try again.`;
    } else if (status >= 500) {
      const attempts = maxRetries + 1;
      message = `NWS failed to answer ${where} (HTTP ${status}, ${attempts} attempt${attempts === 1 ? '' : 's'}): ${said}. The service may be degraded; try again in a few minutes.`;
    } else if (status === 403) {
      message = `NWS refused ${where} (HTTP 403): ${said}. NWS blocks requests without a proper User-Agent; set NWS_USER_AGENT to include contact details.`;
    } else if (status === 404) {
      message = `NWS has nothing at ${where} (HTTP 404): ${said}.`;
    } else if (status === 400) {
      message = `NWS rejected ${where} as a bad request (HTTP 400): ${said}.`;
    } else {
      message = `NWS answered ${where} with HTTP ${status}: ${said}.`;
    }
    return new NwsError('http', message, { status, ...(problem && { problem }) });
  };

  const fetchText = async (url: string): Promise<string> => {
    for (let attempt = 0; ; attempt++) {
      const started = Date.now();
      let response: Response;
      let body: string;
      try {
        response = await fetch(url, {
          headers: { 'user-agent': userAgent, accept: 'application/geo+json' },
          signal: AbortSignal.timeout(timeoutMs),
        });
        body = await readText(response, maxResponseBytes);
      } catch (error) {
        if (error instanceof NwsError) throw error;
        // A timeout is not retried: three slow attempts would keep the agent waiting for half a
        // minute, and a struggling upstream does not need more load.
        if (isTimeout(error)) {
          throw new NwsError(
            'timeout',
            `NWS did not answer ${label(url)} within ${timeoutMs / 1000} s. It may be overloaded; try again in a minute.`,
            { cause: error },
          );
        }
        const reason = networkReason(error);
        if (attempt < maxRetries) {
          const wait = retryDelayMs * 2 ** attempt;
          logger.warn('nws: connection failed, retrying', { path: label(url), reason, wait });
          await sleep(wait);
          continue;
        }
        throw new NwsError(
          'network',
          `Could not reach the NWS API at ${new URL(baseUrl).origin} (${reason}). Check the network or NWS_BASE_URL, then try again.`,
          { cause: error },
        );
      }
      logger.debug('nws: response', {
        path: label(url),
        status: response.status,
        ms: Date.now() - started,
        attempt: attempt + 1,
      });
      if (response.ok) return body;

      const retryable = response.status === 429 || response.status >= 500;
      if (retryable && attempt < maxRetries) {
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        if (retryAfter !== undefined && retryAfter > maxRetryAfterMs) {
          throw new NwsError(
            'http',
            `NWS is busy (HTTP ${response.status}) and asked to wait ${Math.ceil(retryAfter / 1000)} s before retrying ${label(url)}. Try again later.`,
            { status: response.status },
          );
        }
        const wait = retryAfter ?? retryDelayMs * 2 ** attempt;
        logger.warn('nws: retrying', { path: label(url), status: response.status, wait });
        await sleep(wait);
        continue;
      }
      throw failure(url, response.status, response.statusText, body);
    }
  };

  const getJson = async (target: string): Promise<unknown> => {
    const url = resolve(target);
    // The cache holds text, and every caller parses its own copy: nobody can mutate another
    // caller's (or a later caller's) objects.
    const body = await cache.getOrLoad(url, () => fetchText(url));
    try {
      return JSON.parse(body) as unknown;
    } catch (error) {
      throw new NwsError('invalid_response', `NWS answered ${label(url)} with invalid JSON.`, {
        cause: error,
      });
    }
  };

  const invalid = (what: string) =>
    new NwsError('invalid_response', `NWS answered with an unexpected document: ${what}.`);

  const client: NwsClient = {
    baseUrl,
    getJson,

    async getActiveAlerts(query) {
      const filter =
        'area' in query
          ? `area=${encodeURIComponent(query.area)}`
          : `point=${formatPoint(query.point)}`;
      const json = await getJson(`/alerts/active?${filter}`);
      if (!isPlainObject(json) || !Array.isArray(json.features)) {
        throw invalid('an alert list without a "features" array');
      }
      return json.features.map((feature: unknown, index: number) => {
        if (!isPlainObject(feature) || !isPlainObject(feature.properties)) {
          throw invalid(`alert ${index} has no "properties" object`);
        }
        return feature as unknown as NwsAlertFeature;
      });
    },

    async getPoint(point) {
      let json: unknown;
      try {
        json = await getJson(`/points/${formatPoint(point)}`);
      } catch (error) {
        // NWS answers 404 for any point outside its coverage; say so in words an LLM can act on.
        if (error instanceof NwsError && error.status === 404) {
          throw new NwsError(
            'http',
            `NWS has no forecast for this point (${formatPoint(point)}): ${describeProblem(error.problem, 'not found')}. NWS covers only US locations (states, territories and nearby waters); check the coordinates (US longitudes are negative, e.g. -97.7431).`,
            { status: 404, ...(error.problem && { problem: error.problem }), cause: error },
          );
        }
        throw error;
      }
      if (!isPlainObject(json) || !isPlainObject(json.properties)) {
        throw invalid('a point without "properties"');
      }
      return json.properties;
    },

    async getForecastPeriods(point) {
      const properties = await client.getPoint(point);
      const link = properties.forecast;
      if (typeof link !== 'string' || link === '') {
        throw new NwsError(
          'invalid_response',
          `NWS has no forecast link for ${formatPoint(point)} (this happens for some marine and remote points).`,
        );
      }
      const json = await getJson(link);
      if (
        !isPlainObject(json) ||
        !isPlainObject(json.properties) ||
        !Array.isArray(json.properties.periods)
      ) {
        throw invalid('a forecast without "properties.periods"');
      }
      return json.properties.periods.map((period: unknown, index: number) => {
        if (!isPlainObject(period)) throw invalid(`forecast period ${index} is not an object`);
        return period;
      });
    },

    cachedResponses: () => cache.size(),
  };
  return client;
}
