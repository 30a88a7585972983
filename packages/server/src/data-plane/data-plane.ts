import { type Logger, PROTOCOL } from '@s2sp/core';
import { byteSize, milliseconds, parseOptions, positiveInteger } from '@s2sp/core/options';
import type { BodyStore } from '@s2sp/core/store';
import { type Handler, Hono } from 'hono';
import { z } from 'zod';
import { EdgeOptionsSchema, LoggerSchema } from '../edge/edge-options.js';
import { methodNotAllowed, notFoundResponse, s2spErrorToResponse } from '../edge/error-response.js';
import { readRequestBody } from '../edge/request-body.js';
import { silentLogger } from '../logger.js';
import { dataPlaneSpan } from '../telemetry/data-plane-span.js';
import { responseBody } from './body-stream.js';
import { registerDataPlaneRoutes, sealDataPlaneApp } from './front-door-routes.js';
import { createRedeem } from './redeem.js';
import { DEFAULT_MAX_REQUEST_BYTES } from './request.js';

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
  const logger = parsed.logger ?? silentLogger;
  const redeem = createRedeem({ ...parsed, logger, onTaken: options.onTaken });
  const route = `${PROTOCOL.dataPathPrefix}:token`;
  const span = dataPlaneSpan();
  const post: Handler = async (c) => {
    const { headers, rendered } = await redeem({
      token: c.req.param('token') ?? '',
      header: (name) => c.req.header(name),
      body: (maxBytes, timeoutMs) => readRequestBody(c.req.raw, c.env, maxBytes, timeoutMs),
    });
    return c.body(await responseBody(rendered, logger), 200, headers);
  };
  const otherMethods: Handler = () => methodNotAllowed('POST');
  app.use(route, span);
  app.post(route, post);
  app.all(route, otherMethods);
  const health: Handler = (c) => c.json({ status: 'ok' }, 200, { 'cache-control': 'no-store' });
  const healthOtherMethods: Handler = () => methodNotAllowed('GET');
  app.get(PROTOCOL.healthPath, health);
  app.all(PROTOCOL.healthPath, healthOtherMethods);
  // The Node front door serves a redemption only while no handler but these could run for it.
  registerDataPlaneRoutes([span, post, otherMethods, health, healthOtherMethods], {
    redeem,
    logger,
  });
  return app;
}

/**
 * A Hono app that serves only the S2SP data plane (PROTOCOL §3): `POST /s2sp/data/:token`,
 * `GET /s2sp/health`, and the JSON error shape for everything else. Mount it in your own app,
 * serve it as it is, or (fastest on Node) serve it with `toNodeHandler` of `@s2sp/server/node`.
 *
 * @param options - store, limits, logger
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createDataPlaneApp } from '@s2sp/server/http';
 * import { toNodeHandler } from '@s2sp/server/node';
 * createServer(toNodeHandler(createDataPlaneApp({ store: createMemoryStore() }))).listen(3001);
 * ```
 */
export function createDataPlaneApp(options: DataPlaneOptions): Hono {
  const app = new Hono();
  mountDataPlane(app, options);
  app.notFound(notFoundResponse);
  app.onError((error) => s2spErrorToResponse(error));
  sealDataPlaneApp(app);
  return app;
}
