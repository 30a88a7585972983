/**
 * Which apps the data plane's Node front door may serve: the handlers `mountDataPlane` installed,
 * the middleware known to pass a redemption by untouched, and the rule that every route which
 * could match `POST /s2sp/data/{token}` in an app must be one of them, so that serving a
 * redemption without Hono never skips a user's middleware.
 *
 * @module
 */

import type { Logger } from '@s2sp/core';
import { PROTOCOL } from '@s2sp/core';
import type { Hono } from 'hono';
import { COMPOSED_HANDLER } from 'hono/utils/constants';
import { getPath, getPathNoStrict } from 'hono/utils/url';
import type { Redeem } from './redeem.js';

/** One data plane, as its routes were mounted. */
export interface DataPlaneDoor {
  readonly redeem: Redeem;
  readonly logger: Logger;
  /** Set by `createDataPlaneApp`: its app and the error handler it installed. */
  sealed?: { readonly app: Hono; readonly errorHandler: unknown };
}

/** The data plane's handlers (middleware included), to the data plane they belong to. */
const DOORS = new WeakMap<object, DataPlaneDoor>();
/** Middleware that hands a data-plane request on untouched (the S2SP edge's). */
const PASSING = new WeakSet<object>();

/**
 * Records the handlers `mountDataPlane` installed on the data-plane route.
 *
 * @param handlers - every handler and middleware it installed under `/s2sp`
 * @param door - the redemption they run
 */
export function registerDataPlaneRoutes(
  handlers: readonly object[],
  door: Omit<DataPlaneDoor, 'sealed'>,
): void {
  const entry: DataPlaneDoor = { ...door };
  for (const handler of handlers) DOORS.set(handler, entry);
}

/**
 * Records a middleware that passes every data-plane request on to `next()` untouched, so that
 * its presence in front of the route leaves the Node front door in use.
 *
 * @param middleware - the middleware
 */
export function passesDataPlane<T extends object>(middleware: T): T {
  PASSING.add(middleware);
  return middleware;
}

function errorHandlerOf(app: Hono): unknown {
  return (app as unknown as { errorHandler: unknown }).errorHandler;
}

/**
 * Marks an app `createDataPlaneApp` finished: as long as its error handler is the one it has
 * now, it answers the data plane's errors as the Node front door does.
 *
 * @param app - the app, with its data-plane routes mounted
 */
export function sealDataPlaneApp(app: Hono): void {
  const route = app.routes.find((r) => DOORS.has(r.handler));
  const door = route && DOORS.get(route.handler);
  if (door) door.sealed = { app, errorHandler: errorHandlerOf(app) };
}

/** Whether a data plane answers its own errors the way the Node front door does. */
export function intact(door: DataPlaneDoor): boolean {
  return door.sealed !== undefined && errorHandlerOf(door.sealed.app) === door.sealed.errorHandler;
}

const PREFIX = PROTOCOL.dataPathPrefix.slice(1, -1).split('/')[0] as string;
const LITERAL_SEGMENT = /^[A-Za-z0-9._~-]+$/;

/**
 * Whether a route's path could match `/s2sp/data/{token}`: anything whose first segment is not a
 * plain literal other than the data plane's (a wildcard, a parameter, a pattern, `s2sp` itself).
 * Deliberately broad: a route counted here only turns the front door off.
 */
function couldMatchDataPath(path: string): boolean {
  if (path === '/') return false;
  const first = path.split('/')[1] ?? '';
  return !LITERAL_SEGMENT.test(first) || first.toLowerCase() === PREFIX;
}

/**
 * The data plane that alone may run for `POST /s2sp/data/{token}` in `app`, or `undefined`: every
 * route that could match that path is a handler of one data plane made by `createDataPlaneApp`
 * (that app itself, or mounted with `app.route` so that its own error handler answers) or a
 * middleware known to pass it.
 */
export function soleDataPlane(app: Hono): DataPlaneDoor | undefined {
  // An app that routes on something else than the request's path (its own `getPath`) may send the
  // request elsewhere.
  if (app.getPath !== getPath && app.getPath !== getPathNoStrict) return undefined;
  let found: DataPlaneDoor | undefined;
  for (const route of app.routes) {
    if (!couldMatchDataPath(route.path) || PASSING.has(route.handler)) continue;
    // `app.route()` wraps a sub-app's handler in that sub-app's error handler and keeps it here.
    const inner = (route.handler as unknown as Record<string, unknown>)[COMPOSED_HANDLER];
    const door = DOORS.get(typeof inner === 'function' ? inner : route.handler);
    if (!door || (found && door !== found)) return undefined;
    // Mounted directly, its errors are answered by this app's error handler: known only in the
    // data plane's own app.
    if (typeof inner !== 'function' && door.sealed?.app !== app) return undefined;
    found = door;
  }
  return found && intact(found) ? found : undefined;
}
