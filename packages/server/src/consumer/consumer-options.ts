/**
 * A consumer tool's fetch settings and what it is told about a call, apart from the tool itself
 * (`consumer-tool.ts`) so that the runtime's options and the row resolver name them without
 * importing the tool, which imports both.
 *
 * @module
 */

import type { FetchBodyOptions } from '@s2sp/core';
import { FetchBodyLimitsSchema, stringList } from '@s2sp/core/options';
import { z } from 'zod';
import { ConcurrencyLimitOptionsSchema } from '../limits/concurrency-limit.js';

/**
 * What S2SP knows about a consumer call besides the rows: which columns the model chose and saw
 * (so a tool can keep every other column's values out of its result) and where the body came from.
 */
export interface ConsumerCallInfo {
  /** Columns of `abstract_data` (after `column_mapping`), without `_row_id`: the model saw these. */
  readonly abstractColumns: readonly string[];
  /**
   * Where the other columns came from: fetched from `resource_url`, passed inline as `body_data`
   * (sync mode), or `none` (only the abstract rows were passed).
   */
  readonly bodySource: 'resource_url' | 'body_data' | 'none';
}

/** Fetch settings of a server's consumer tools (PROTOCOL §4). */
export interface ConsumerFetchOptions {
  /**
   * Origins a `resource_url` may point at. Recommended: the URL comes from an LLM. Listed origins
   * are fetched whatever their address (list a loopback origin to use one); an entry may carry a
   * path prefix (`https://gateway.example.com/weather`).
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Path prefixes allowed before `/s2sp/data/{token}` on any origin. Default none: the path must
   * be exactly `/s2sp/data/{token}` at the origin root.
   */
  readonly pathPrefixes?: readonly string[];
  /**
   * Without an allow-list: `'public'` (the default) fetches only from the public
   * internet — loopback, private, link-local (cloud metadata) and local-only names are refused,
   * checked for IP literals, for every resolved address and for the connected socket (see
   * `createPublicOnlyFetch` in `@s2sp/core/node`); `'any'` fetches from anywhere (development
   * only). With a custom `fetch`, only IP literals and local names are checked here.
   */
  readonly destinations?: FetchBodyOptions['destinations'];
  /** Time limit of a data-plane fetch. Default 30 000 ms. */
  readonly timeoutMs?: number;
  /** Largest data-plane response accepted. Default 64 MiB. */
  readonly maxResponseBytes?: number;
  /**
   * How many times a data-plane fetch tries again, with its `Idempotency-Key`, after a broken
   * connection, a body cut short or a 5xx (PROTOCOL §7.10; `retries` of `fetchBody`). Default 3;
   * 0 sends no key and tries once.
   */
  readonly fetchRetries?: number;
  /** The `fetch` to use. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /**
   * How many data-plane fetches this server's consumer tools run at once. Default 4. Each may
   * hold up to `maxResponseBytes` while it is parsed, so this bounds the memory one burst of
   * calls (or one JSON-RPC batch) can take.
   */
  readonly maxConcurrentFetches?: number;
  /** How many more fetches may wait for a slot; beyond that a call fails at once. Default 16. */
  readonly maxQueuedFetches?: number;
}

/** Default of {@link ConsumerFetchOptions.maxConcurrentFetches}. */
export const DEFAULT_MAX_CONCURRENT_FETCHES = 4;
/** Default of {@link ConsumerFetchOptions.maxQueuedFetches}. */
export const DEFAULT_MAX_QUEUED_FETCHES = 16;

/** An allowed origin, or an origin with the path prefix its resource_urls live under. */
const AllowedOriginSchema = z.string().transform((value, context) => {
  try {
    const url = new URL(value);
    if (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      !url.username &&
      !url.password &&
      !url.search &&
      !url.hash
    )
      return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    // reported below
  }
  context.issues.push({
    code: 'custom',
    input: '',
    message:
      'must be http(s) origins such as http://127.0.0.1:3001, optionally with a path prefix such as https://gateway.example.com/weather',
  });
  return z.NEVER;
});

/** A path prefix (`/api`), normalised with one leading and no trailing slash. */
const PathPrefixSchema = z
  .string()
  .regex(/^\/?[A-Za-z0-9._~!$&'()*+,;=:@%-]+(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*\/?$/)
  .transform((value) => `/${value.replace(/^\/+|\/+$/g, '')}`)
  .meta({ allowed: 'paths such as /api' });

/**
 * The options of a server's consumer fetches ({@link ConsumerFetchOptions}): rules, defaults and
 * the environment variables `loadConsumerEnv` reads. The time and size limits are
 * `fetchBody`'s own, the concurrency `createConcurrencyLimit`'s.
 */
export const ConsumerFetchOptionsSchema = z.object({
  allowedOrigins: stringList(AllowedOriginSchema).optional().meta({
    env: 'S2SP_ALLOWED_ORIGINS',
    description:
      'Origins a consumer may fetch from, loopback ones included; an entry may carry a path prefix (`https://gateway.example.com/weather`). Set it in production.',
  }),
  destinations: z.enum(['public', 'any']).default('public').meta({
    env: 'S2SP_CONSUMER_DESTINATIONS',
    description:
      "Without an allow-list: `'public'` fetches only from public internet addresses (IP literals, every resolved address and the connected socket are checked); `'any'` from anywhere (development only).",
  }),
  pathPrefixes: stringList(PathPrefixSchema).optional().meta({
    env: 'S2SP_PATH_PREFIXES',
    description:
      'Path prefixes allowed before `/s2sp/data/{token}` on any origin; otherwise the path must be exactly that.',
  }),
  timeoutMs: FetchBodyLimitsSchema.shape.timeoutMs,
  maxResponseBytes: FetchBodyLimitsSchema.shape.maxBytes.describe(
    'Largest data-plane response. Compressed answers are refused (`Accept-Encoding: identity`).',
  ),
  fetchRetries: FetchBodyLimitsSchema.shape.retries.meta({
    env: 'S2SP_FETCH_RETRIES',
    description:
      'Times a data-plane fetch tries again, with its Idempotency-Key, after a broken connection, a cut body or a 5xx (PROTOCOL §7.10); 0 sends no key and tries once.',
  }),
  fetch: z
    .custom<typeof fetch>((value) => typeof value === 'function')
    .optional()
    .meta({ allowed: 'a fetch function', type: 'function', defaultText: 'public-only fetch' }),
  maxConcurrentFetches: ConcurrencyLimitOptionsSchema.shape.concurrency
    .default(DEFAULT_MAX_CONCURRENT_FETCHES)
    .meta({
      env: 'S2SP_MAX_CONCURRENT_FETCHES',
      description: 'Data-plane fetches at once per server.',
    }),
  maxQueuedFetches: ConcurrencyLimitOptionsSchema.shape.queue
    .unwrap()
    .default(DEFAULT_MAX_QUEUED_FETCHES)
    .describe(
      'Fetches that may wait; beyond that a consumer call fails at once with "busy, retry".',
    ),
} satisfies Record<keyof ConsumerFetchOptions, z.ZodType>);
