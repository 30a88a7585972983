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
  type BearerAuthInfo,
  type BearerAuthOptions,
  bearerAuth,
  type TokenVerifier,
} from '../edge/bearer-auth.js';
export { type BrowserGuardOptions, browserGuard, isAllowedHost } from '../edge/browser-guard.js';
export { methodNotAllowed, notFoundResponse, s2spErrorToResponse } from '../edge/error-response.js';
export { createDataPlaneApp, type DataPlaneOptions, mountDataPlane } from './data-plane.js';
