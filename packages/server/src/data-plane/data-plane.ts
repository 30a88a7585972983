import { isTokenShape, type Logger, PROTOCOL, S2SPError, tokenStorageKey } from '@s2sp/core';
import { askForFewerRowIds, resourceUrlGone } from '@s2sp/core/advice';
import { byteSize, milliseconds, parseOptions, positiveInteger } from '@s2sp/core/options';
import type { BodyStore } from '@s2sp/core/store';
import { Hono } from 'hono';
import { z } from 'zod';
import { sendDataPlaneRequest, sendJson } from '../advice.js';
import { crossSiteReason } from '../edge/browser-guard.js';
import { EdgeOptionsSchema, LoggerSchema } from '../edge/edge-options.js';
import { methodNotAllowed, notFoundResponse, s2spErrorToResponse } from '../edge/error-response.js';
import { readRequestBody } from '../edge/request-body.js';
import { entryLabel, silentLogger } from '../logger.js';
import { dataPlaneSpan } from '../telemetry/data-plane-span.js';
import { responseBody } from './body-stream.js';
import {
  DEFAULT_MAX_REQUEST_BYTES,
  isJsonContentType,
  isJsonWhitespace,
  parseDataPlaneRequest,
  parseIdempotencyKey,
  requestedRowIds,
  retryDigest,
} from './request.js';
import { negotiateFormat, renderDataPlaneBody } from './response-body.js';

/** Options for {@link createDataPlaneApp} and {@link mountDataPlane}. */
export interface DataPlaneOptions {
  /** Where async-mode tables wait for their redemption. */
  readonly store: BodyStore;
  /** Largest request body accepted, in bytes. Default 1 MiB; larger gets 413. */
  readonly maxRequestBytes?: number;
  /** Where redemptions are logged (never with tokens). Default: silent. */
  readonly logger?: Logger;
  /** Longest the request body may take to arrive, in ms; slower gets 408. Default 10 000. */
  readonly bodyTimeoutMs?: number;
  /**
   * Most distinct `row_ids` in one request. Default 10 000; more gets 400 `invalid_request`
   * without using the token. Bounds the work (and, on Redis, the script time) one request can
   * cause; the stores also refuse more ids than the table has rows.
   */
  readonly maxRowIds?: number;
  /**
   * Called with the storage key of every entry a request took (for per-client quotas); with
   * `graceMs` when the entry stays that long for repeats of a retry-safe redemption.
   */
  readonly onTaken?: (key: string, graceMs?: number) => void;
  /**
   * How long a redemption sent with an `Idempotency-Key` can be repeated by that consumer, with
   * that key and the same request (PROTOCOL §7.10), in ms. The entry stays in the store, counted
   * against its budgets, for that long after the first take. Default 60 000; 0 turns the
   * extension off (the header is then ignored, as by a peer without it).
   */
  readonly retryGraceMs?: number;
}

/** Default of {@link DataPlaneOptions.retryGraceMs}: 60 s. */
export const DEFAULT_RETRY_GRACE_MS = 60_000;

/** Default of {@link DataPlaneOptions.maxRowIds}. */
export const DEFAULT_MAX_ROW_IDS = PROTOCOL.maxRequestRowIds;

/**
 * The options of {@link createDataPlaneApp} and {@link mountDataPlane}. The body read timeout is
 * the HTTP edge's rule.
 */
export const DataPlaneOptionsSchema = z.object({
  store: z
    .custom<BodyStore>((value) => typeof value === 'object' && value !== null)
    .meta({
      allowed: 'a BodyStore',
    }),
  maxRequestBytes: byteSize().default(DEFAULT_MAX_REQUEST_BYTES),
  logger: LoggerSchema.optional(),
  bodyTimeoutMs: EdgeOptionsSchema.shape.requestBodyTimeoutMs,
  maxRowIds: positiveInteger().default(DEFAULT_MAX_ROW_IDS),
  onTaken: z
    .custom<(key: string, graceMs?: number) => void>((value) => typeof value === 'function')
    .optional(),
  retryGraceMs: milliseconds({ min: 0, max: 10 * 60_000 }).default(DEFAULT_RETRY_GRACE_MS),
} satisfies Record<keyof DataPlaneOptions, z.ZodType>);

// One body for unknown, expired and used tokens alike, so a 404 says nothing about which.
const GONE = resourceUrlGone;

// ignoreBOM keeps a byte order mark in the text, where JSON.parse refuses it: a body of only
// U+FEFF must be a 400 that keeps the token, not an empty body that uses it. One decoder for all
// requests: without `stream` each decode starts afresh.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

async function readLimited(
  request: Request,
  env: unknown,
  maxBytes: number,
  timeoutMs: number,
): Promise<string> {
  const bytes = await readRequestBody(request, env, maxBytes, timeoutMs);
  if (!bytes) {
    throw new S2SPError(
      'payload_too_large',
      `The request body is larger than ${maxBytes} bytes. ${askForFewerRowIds}`,
    );
  }
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new S2SPError(
      'invalid_request',
      `The request body is not valid UTF-8 JSON. ${sendDataPlaneRequest}`,
    );
  }
}

/**
 * Adds the data-plane routes (PROTOCOL §3) to an existing Hono app: `POST /s2sp/data/:token`
 * and `GET /s2sp/health`, with 405s for other methods. Use it to serve the data plane next to
 * your own routes; install {@link s2spErrorToResponse} as the app's error handler too.
 *
 * A request is validated completely (content type, size, JSON, types) before its token is looked
 * up, so a malformed request never uses the token up.
 *
 * Do not put a request logger that prints paths in front of these routes: the path holds a live
 * token.
 *
 * @param app - the app to add routes to
 * @param options - store, limits, logger
 */
export function mountDataPlane(app: Hono, options: DataPlaneOptions): Hono {
  const parsed = parseOptions(DataPlaneOptionsSchema, options, { factory: 'createDataPlaneApp' });
  const { store, maxRequestBytes, bodyTimeoutMs, maxRowIds, retryGraceMs } = parsed;
  const logger = parsed.logger ?? silentLogger;

  app.use(`${PROTOCOL.dataPathPrefix}:token`, dataPlaneSpan());
  app.post(`${PROTOCOL.dataPathPrefix}:token`, async (c) => {
    // Consumers are servers. A browser page on another site must not be able to spend a token it
    // has seen (a no-cors POST needs no preflight), so its requests stop here, before the body.
    const crossSite = crossSiteReason(c.req.raw, [], { ownOrigin: false });
    if (crossSite) throw new S2SPError('forbidden', crossSite);
    const contentType = c.req.header('content-type');
    const text = await readLimited(c.req.raw, c.env, maxRequestBytes, bodyTimeoutMs);
    // An empty body counts as {} whatever its type (fetch labels an empty string text/plain);
    // anything else must be application/json, with charset=utf-8 at most (PROTOCOL §3).
    if (!isJsonWhitespace(text) && !isJsonContentType(contentType)) {
      throw new S2SPError(
        'unsupported_media_type',
        `The request body is not application/json. ${sendJson}`,
      );
    }
    const request = parseDataPlaneRequest(text);
    const idempotencyKey =
      retryGraceMs > 0
        ? parseIdempotencyKey(c.req.header(PROTOCOL.idempotencyKeyHeader))
        : undefined;
    const token = c.req.param('token');
    if (!isTokenShape(token)) throw new S2SPError('not_found', GONE);

    const started = Date.now();
    const key = await tokenStorageKey(token);
    const rowIds = requestedRowIds(request);
    if (rowIds && rowIds.length > maxRowIds) {
      throw new S2SPError(
        'invalid_request',
        `row_ids lists ${rowIds.length} distinct ids; this data plane takes at most ${maxRowIds}. ${askForFewerRowIds}`,
      );
    }
    const format = negotiateFormat(c.req.header('accept'));
    // A retry-safe redemption (PROTOCOL §7.10) is its own branch: without the header nothing
    // changes, not even the cost.
    const retry =
      idempotencyKey === undefined
        ? undefined
        : {
            key: await retryDigest(idempotencyKey, rowIds, request, format),
            graceMs: retryGraceMs,
          };
    const taken = await (retry ? store.take(key, rowIds, { retry }) : store.take(key, rowIds));
    if (!taken) {
      logger.debug('data plane: no entry', { entry: entryLabel(key) });
      throw new S2SPError('not_found', GONE);
    }
    if (retry) options.onTaken?.(key, retry.graceMs);
    else options.onTaken?.(key);
    const rendered = await renderDataPlaneBody(taken, request, format);
    logger.info('data plane: redeemed', {
      entry: entryLabel(key),
      tableRows: taken.tableRows,
      format,
      bytes: rendered.byteLength,
      ms: Date.now() - started,
    });
    const headers: Record<string, string> = {
      'content-type': rendered.contentType,
      'cache-control': 'no-store',
      vary: 'accept',
      'content-length': String(rendered.byteLength),
    };
    if (rendered.totalRows !== undefined)
      headers[PROTOCOL.totalRowsHeader] = String(rendered.totalRows);
    return c.body(await responseBody(rendered, logger), 200, headers);
  });
  app.all(`${PROTOCOL.dataPathPrefix}:token`, () => methodNotAllowed('POST'));
  app.get(PROTOCOL.healthPath, (c) =>
    c.json({ status: 'ok' }, 200, { 'cache-control': 'no-store' }),
  );
  app.all(PROTOCOL.healthPath, () => methodNotAllowed('GET'));
  return app;
}

/**
 * A Hono app that serves only the S2SP data plane (PROTOCOL §3): `POST /s2sp/data/:token`,
 * `GET /s2sp/health`, and the JSON error shape for everything else. Mount it in your own app or
 * serve it as it is.
 *
 * @param options - store, limits, logger
 * @example
 * ```ts
 * import { serve } from '@hono/node-server';
 *  * import { createDataPlaneApp } from '@s2sp/server/http';
 * serve({ fetch: createDataPlaneApp({ store: createMemoryStore() }).fetch, port: 3001 });
 * ```
 */
export function createDataPlaneApp(options: DataPlaneOptions): Hono {
  const app = new Hono();
  mountDataPlane(app, options);
  app.notFound(notFoundResponse);
  app.onError((error) => s2spErrorToResponse(error));
  return app;
}
