/**
 * The server span of a redemption: a consumer's `POST /s2sp/data/{token}`, continuing the
 * consumer's trace from its `traceparent` header, and the redemption metrics.
 *
 * @module
 */

import { S2SPError } from '@s2sp/core';
import type { MiddlewareHandler } from 'hono';
import { recordRedemption } from './metrics.js';
import { otelIfLoaded } from './otel.js';
import { extractContext, inSpan, markFailed } from './spans.js';

/** The route's name in spans: never the path itself, which holds a live token. */
export const DATA_PLANE_ROUTE = '/s2sp/data/{token}';

/** How a redemption ended, read only when a span or a metric records it. */
export interface RedemptionOutcome {
  /** The HTTP status answered. */
  readonly status: number;
  /** The error that made it fail, if any. */
  readonly error?: unknown;
  /** The 200 body's `Content-Length`; 0 otherwise. */
  readonly bytes: number;
}

/**
 * Runs one redemption (`work`) in its `POST /s2sp/data/{token}` server span (child of the
 * request's `traceparent`), then records the status, the outcome (`ok` or the S2SP error code)
 * and the bytes served on the span and in the `s2sp.data_plane.*` metrics. Without OpenTelemetry
 * it only runs `work`. Each front door of the data plane (the Hono route, the Node one) calls it
 * once per redemption.
 *
 * @param header - the request's headers by lower-case name
 * @param work - answers the request
 * @param outcome - how it ended, read after `work`
 */
export function inDataPlaneSpan(
  header: (name: string) => string | null | undefined,
  work: () => Promise<void>,
  outcome: () => RedemptionOutcome,
): Promise<void> {
  return inSpan(
    `POST ${DATA_PLANE_ROUTE}`,
    {
      kind: 'SERVER',
      attributes: { 'http.request.method': 'POST', 'http.route': DATA_PLANE_ROUTE },
      parent: (api, active) =>
        extractContext(api, active, {
          traceparent: header('traceparent') ?? undefined,
          tracestate: header('tracestate') ?? undefined,
        }),
    },
    async (span) => {
      await work();
      const api = otelIfLoaded();
      if (!api) return;
      const { status, error, bytes } = outcome();
      const result =
        status === 200
          ? 'ok'
          : S2SPError.isInstance(error)
            ? error.code
            : status >= 500
              ? 'internal'
              : `http_${status}`;
      recordRedemption(result, bytes);
      if (!span) return;
      span.setAttributes({
        'http.response.status_code': status,
        's2sp.outcome': result,
        's2sp.bytes': bytes,
      });
      if (status !== 200) markFailed(api, span, result);
    },
  );
}

/**
 * Hono middleware for the data-plane route: {@link inDataPlaneSpan} around the route. Without
 * OpenTelemetry it only calls `next()`.
 */
export function dataPlaneSpan(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    await inDataPlaneSpan(
      (name) => c.req.header(name),
      () => next(),
      () => ({
        status: c.res.status,
        // Hono keeps a handler's error on the context after its error handler answered.
        error: c.error,
        bytes: c.res.status === 200 ? Number(c.res.headers.get('content-length') ?? 0) : 0,
      }),
    );
  };
}
