/**
 * `@s2sp/proxy`: S2SP in front of any MCP server, with no change to its code. The CLI is
 * `s2sp-proxy`; this is the library behind it.
 *
 * This file is the package's public API: adding an export here is an API change.
 *
 * @module
 */

export { createS2SPProxy } from './proxy.js';
export type {
  ProxyListener,
  ProxyListenOptions,
  S2SPProxy,
  S2SPProxyOptions,
} from './proxy-types.js';
export { findTable } from './tables/detect/find-table.js';
export type { TableFormat } from './tables/detect/text-formats.js';
export type { TableToolRule } from './tables/table-tools.js';
export type { HttpUpstream, StdioUpstream, UpstreamTarget } from './upstream/upstream-target.js';
