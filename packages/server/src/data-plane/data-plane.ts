import { PROTOCOL } from '@s2sp/core';
import { parseOptions } from '@s2sp/core/options';
import { type Handler, Hono } from 'hono';
import { methodNotAllowed, notFoundResponse, s2spErrorToResponse } from '../edge/error-response.js';
import { readRequestBody } from '../edge/request-body.js';
import { silentLogger } from '../logger.js';
import { dataPlaneSpan } from '../telemetry/data-plane-span.js';
import { responseBody } from './body-stream.js';
import { type DataPlaneOptions, DataPlaneOptionsSchema } from './data-plane-options.js';
import { registerDataPlaneRoutes, sealDataPlaneApp } from './front-door-routes.js';
import { createRedeem } from './redeem.js';

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
