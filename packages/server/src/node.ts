/**
 * `@s2sp/server/node`: serving the data plane from Node HTTP stacks that are not Hono — Express,
 * Connect, Fastify's `middie`, or a plain `node:http` server — and stopping a Node program on
 * SIGTERM without losing the requests it is serving.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { PROTOCOL } from '@s2sp/core';
import type { Hono } from 'hono';
import { nodeFrontDoor } from './data-plane/node-front-door.js';

/** A Node request that a body parser may already have read (Express's `express.json()`). */
type NodeRequest = IncomingMessage & { body?: unknown; originalUrl?: string; rawBody?: unknown };

/**
 * A Node request handler for a Hono app such as `s2sp.dataPlane`, usable as Express or Connect
 * middleware (`app.use(toNodeHandler(s2sp.dataPlane))`) or as a `node:http` request listener.
 *
 * Two things make it safe to drop into an existing app:
 * - As middleware it answers only S2SP paths (`/s2sp/data/…`, `/s2sp/health`) and passes every
 *   other request to `next()`, so it never shadows your routes or your 404.
 * - When a body parser such as `express.json()` ran first, the request stream is already
 *   consumed; the parsed body is sent on as JSON, so a data-plane request never loses its
 *   `row_ids` and redeems the whole table by mistake.
 *
 * While nothing but the data plane of `createDataPlaneApp` (such as `s2sp.dataPlane`, alone or
 * mounted with `app.route()`) could run for `/s2sp/data/…` in `app`, it serves redemptions
 * straight from Node's request and response — the fastest way, the same answers byte for byte.
 * Add a route or a middleware that could match that path (`app.use('*', …)`, anything under
 * `/s2sp`, a parameter or wildcard first segment) and every request goes through Hono, so your
 * middleware always runs; a body that `express.json()` already read goes through Hono too.
 *
 * @param app - the Hono app to serve (usually `s2sp.dataPlane`)
 * @example
 * ```ts
 * const app = express();
 * app.use(toNodeHandler(s2sp.dataPlane));   // before or after express.json(), either works
 * ```
 */
export function toNodeHandler(
  app: Pick<Hono, 'fetch'>,
): (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void {
  const listener = getRequestListener(app.fetch);
  const frontDoor = nodeFrontDoor(app);
  return (req, res, next) => {
    const request = req as NodeRequest;
    // Express strips a mount path from req.url; the data plane routes on the full path.
    const url = request.originalUrl ?? request.url ?? '/';
    const path = url.split('?')[0] ?? '/';
    if (next && !path.startsWith(PROTOCOL.dataPathPrefix) && path !== PROTOCOL.healthPath) {
      next();
      return;
    }
    request.url = url;
    if (frontDoor(req, res)) return;
    if (request.readableEnded && request.body !== undefined && request.rawBody === undefined) {
      // @hono/node-server reads `rawBody` when the stream is gone (as on Cloud Functions).
      request.rawBody = Buffer.from(
        typeof request.body === 'string' ? request.body : JSON.stringify(request.body),
      );
    }
    void listener(req, res);
  };
}

export { type StopOnSignalsOptions, stopOnSignals } from './edge/stop-on-signals.js';
export { startTelemetryFromEnv } from './telemetry/node-sdk.js';
