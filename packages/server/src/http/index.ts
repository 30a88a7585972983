/**
 * `@s2sp/server/http`: the Hono data plane on its own, for serving S2SP data next to any server,
 * and the HTTP edge's checks as Hono middleware for apps of your own (`browserGuard`,
 * `bearerAuth`).
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

export {
  createDataPlaneApp,
  type DataPlaneOptions,
  mountDataPlane,
} from '../data-plane/data-plane.js';
export {
  type BearerAuthInfo,
  type BearerAuthOptions,
  bearerAuth,
  type TokenVerifier,
} from './bearer-auth.js';
export { type BrowserGuardOptions, browserGuard, isAllowedHost } from './browser-guard.js';
export { methodNotAllowed, notFoundResponse, s2spErrorToResponse } from './error-response.js';
