/**
 * `@s2sp/server/http`: the one HTTP edge (`createS2SPEdge`: browser and DNS-rebinding guard,
 * bearer auth, body caps, read timeouts, the error → status rendering and a Node listener) that
 * `createS2SPServer` and `@s2sp/proxy` mount, and the Hono data plane on its own, for serving
 * S2SP data next to any server. The edge's checks also come one by one as Hono middleware
 * (`browserGuard`, `bearerAuth`).
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

export { createDataPlaneApp, mountDataPlane } from '../data-plane/data-plane.js';
export type { DataPlaneOptions } from '../data-plane/data-plane-options.js';
export {
  type BearerAuthInfo,
  type BearerAuthOptions,
  bearerAuth,
  type TokenVerifier,
} from '../edge/bearer-auth.js';
export { type BrowserGuardOptions, browserGuard, isAllowedHost } from '../edge/browser-guard.js';
export {
  type EdgeOptionNames,
  type ResolvedEdgeOptions,
  resolveEdgeOptions,
  type S2SPEdgeOptions,
} from '../edge/edge-options.js';
export {
  methodNotAllowed,
  notFoundResponse,
  s2spErrorToResponse,
} from '../edge/error-response.js';
export type { McpRequestBody } from '../edge/mcp-request-body.js';
export { createModernMcp } from '../edge/modern-mcp.js';
export type { ListenOptions, NodeListener, ShutdownOptions } from '../edge/node-listener.js';
export {
  createS2SPEdge,
  type S2SPEdge,
  type TransportRebindingProtection,
} from '../edge/s2sp-edge.js';
