/**
 * `@s2sp/server/http`: the Hono data plane on its own, for serving S2SP data next to any server.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

export { createDataPlaneApp, type DataPlaneOptions, mountDataPlane } from './data-plane.js';
export { methodNotAllowed, notFoundResponse, s2spErrorToResponse } from './error-response.js';
