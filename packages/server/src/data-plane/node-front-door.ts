/**
 * The data plane's Node front door: a `POST /s2sp/data/{token}` served straight from Node's
 * request and response, without Hono's and `@hono/node-server`'s objects, the head and every piece
 * the store holds written corked (one `writev`). It runs the same {@link Redeem} as the Hono route
 * and answers errors through the same table, byte for byte; it is used only for an app where
 * nothing but the data plane (and middleware known to pass it by) could run for that request, so
 * no user middleware is ever skipped.
 *
 * @module
 */

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { type Logger, PROTOCOL } from '@s2sp/core';
import type { Hono } from 'hono';
import type { HeaderGetter } from '../edge/browser-guard.js';
import { errorResponseParts } from '../edge/error-response.js';
import { readNode } from '../edge/request-body.js';
import { inDataPlaneSpan } from '../telemetry/data-plane-span.js';
import { storeFailed, takeReady } from './body-stream.js';
import { type DataPlaneDoor, intact, soleDataPlane } from './front-door-routes.js';
import type { Redemption } from './redeem.js';

/**
 * A request listener's first step: serves `POST /s2sp/data/{token}` itself and returns true, or
 * returns false and leaves the request to the app. Serves only when the app is the data plane
 * alone for that path (checked again whenever its routes change) and the body is still unread.
 */
export type NodeFrontDoor = (request: IncomingMessage, response: ServerResponse) => boolean;

// The token segment as the Hono route sees it without any decoding or normalising: anything else
// (percent-escapes, dots, a second segment, an absolute URL) goes the usual way.
const DATA_PATH = new RegExp(`^${PROTOCOL.dataPathPrefix}([A-Za-z0-9_-]+)(?:\\?|$)`);

/**
 * The Node front door of `app` (see {@link NodeFrontDoor}); one that never serves for anything
 * that is not a Hono app.
 *
 * @param app - the app the listener serves
 */
export function nodeFrontDoor(app: Pick<Hono, 'fetch'>): NodeFrontDoor {
  const routes = (app as Partial<Hono>).routes;
  if (!Array.isArray(routes)) return () => false;
  const hono = app as Hono;
  let checkedAt = -1;
  let door: DataPlaneDoor | undefined;
  return (request, response) => {
    if (request.method !== 'POST' || request.readableDidRead) return false;
    const match = DATA_PATH.exec(request.url ?? '');
    if (!match) return false;
    if (checkedAt !== hono.routes.length) {
      door = soleDataPlane(hono);
      checkedAt = hono.routes.length;
    }
    if (!door || !intact(door)) return false;
    serve(door, match[1] as string, request, response).catch(() => {
      // Everything is answered inside; a failure of the telemetry itself must not crash the process.
      response.destroy();
    });
    return true;
  };
}

/**
 * Node's request headers as Fetch's `Headers` read them: repeated ones joined by `, `. Read from
 * the raw lines: `request.headers` would build an object of every header on first use, and Node
 * keeps only the first of some repeated ones (Content-Type among them), where `Headers` joins.
 */
function headerGetter(request: IncomingMessage): HeaderGetter {
  const raw = request.rawHeaders;
  return (name) => {
    const wanted = name.toLowerCase();
    let value: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      const line = raw[i] as string;
      if (line.length !== wanted.length || line.toLowerCase() !== wanted) continue;
      const next = raw[i + 1] as string;
      value = value === undefined ? next : `${value}, ${next}`;
    }
    return value;
  };
}

async function serve(
  door: DataPlaneDoor,
  token: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const header = headerGetter(request);
  let status = 200;
  let failure: unknown;
  let bytes = 0;
  let rest: Promise<void> | undefined;
  await inDataPlaneSpan(
    header,
    async () => {
      try {
        const answer = await door.redeem({
          token,
          header,
          body: (maxBytes, timeoutMs) => readNode(request, maxBytes, timeoutMs),
        });
        bytes = answer.rendered.byteLength;
        ({ rest } = await send(response, answer, door.logger));
      } catch (error) {
        failure = error;
        status = sendError(request, response, error);
      }
    },
    () => ({ status, error: failure, bytes: status === 200 ? bytes : 0 }),
  );
  await rest;
}

/** As `@hono/node-server` writes a `Headers`: lower-case names, in `Headers`' (sorted) order. */
function sortedHeaders(headers: Record<string, string>): OutgoingHttpHeaders {
  const sorted: OutgoingHttpHeaders = {};
  for (const name of Object.keys(headers).sort()) sorted[name] = headers[name];
  return sorted;
}

/**
 * Writes a 200: the head and what the store has at hand corked, so they leave in one `writev`;
 * the rest of a body the store streams (returned) one piece at a time, waiting for `drain`. Once
 * all of it has been handed to the system (`finish`), the store may reuse the bytes; a response
 * cut short never gives them back, as its writes may still hold them.
 */
async function send(
  response: ServerResponse,
  { headers, rendered, release }: Redemption,
  logger: Logger,
): Promise<{ readonly rest?: Promise<void> }> {
  const { ready, done, rest } = await takeReady(rendered.chunks, logger);
  if (release) response.once('finish', release);
  response.writeHead(200, sortedHeaders(headers));
  response.cork();
  for (const piece of ready) response.write(piece);
  if (done) {
    // end() uncorks: the head and every piece go to the socket together.
    response.end();
    return {};
  }
  response.uncork();
  // Outside the span, as a streamed body is on the Hono route.
  return { rest: pump(response, rest, logger) };
}

async function pump(
  response: ServerResponse,
  rest: AsyncIterator<Uint8Array>,
  logger: Logger,
): Promise<void> {
  try {
    for (;;) {
      if (response.destroyed) {
        // The client went away: stop the store's stream.
        await rest.return?.();
        return;
      }
      const next = await rest.next();
      if (next.done) {
        response.end();
        return;
      }
      if (!response.write(next.value)) await drained(response);
    }
  } catch (error) {
    storeFailed(logger, error);
    // A body cut short, never a complete-looking one.
    response.destroy();
  }
}

function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/** Answers an error as `s2spErrorToResponse` does under `@hono/node-server`; returns its status. */
function sendError(request: IncomingMessage, response: ServerResponse, error: unknown): number {
  const { status, headers, body } = errorResponseParts(error);
  if (response.headersSent) {
    response.destroy();
    return status;
  }
  response.statusCode = status;
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  response.end(body);
  // The rest of a body not read (over the limit, too slow) must not stall the connection.
  if (!request.readableEnded) response.once('close', () => discardRest(request));
  return status;
}

/** Most of a refused body read and thrown away before its connection is closed instead. */
const DISCARD_BYTES = 64 * 1024 * 1024;
/** Longest a refused body is read and thrown away before its connection is closed instead. */
const DISCARD_MS = 500;

function discardRest(request: IncomingMessage): void {
  if (request.readableEnded || request.destroyed) return;
  let read = 0;
  const stop = () => {
    clearTimeout(timer);
    request.off('data', onData);
    request.socket?.destroySoon();
  };
  const timer = setTimeout(stop, DISCARD_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    read += chunk.byteLength;
    if (read > DISCARD_BYTES) stop();
  };
  request.on('data', onData);
  request.once('end', () => {
    clearTimeout(timer);
    request.off('data', onData);
  });
  request.resume();
}
