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

/**
 * Hono middleware for the data-plane route: a `POST /s2sp/data/{token}` server span (child of
 * the request's `traceparent`), with the status, the outcome (`ok` or the S2SP error code) and
 * the bytes served; and the `s2sp.data_plane.*` metrics. Without OpenTelemetry it only calls
 * `next()`.
 */
export function dataPlaneSpan(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    await inSpan(
      `POST ${DATA_PLANE_ROUTE}`,
      {
        kind: 'SERVER',
        attributes: { 'http.request.method': 'POST', 'http.route': DATA_PLANE_ROUTE },
        parent: (api, active) =>
          extractContext(api, active, {
            traceparent: c.req.header('traceparent'),
            tracestate: c.req.header('tracestate'),
          }),
      },
      async (span) => {
        await next();
        const api = otelIfLoaded();
        if (!api) return;
        const status = c.res.status;
        // Hono keeps a handler's error on the context after its error handler answered.
        const outcome =
          status === 200
            ? 'ok'
            : S2SPError.isInstance(c.error)
              ? c.error.code
              : status >= 500
                ? 'internal'
                : `http_${status}`;
        const bytes = status === 200 ? Number(c.res.headers.get('content-length') ?? 0) : 0;
        recordRedemption(outcome, bytes);
        if (!span) return;
        span.setAttributes({
          'http.response.status_code': status,
          's2sp.outcome': outcome,
          's2sp.bytes': bytes,
        });
        if (status !== 200) markFailed(api, span, outcome);
      },
    );
  };
}
