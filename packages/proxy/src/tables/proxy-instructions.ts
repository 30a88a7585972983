/**
 * The MCP `instructions` the proxy serves: the upstream's own, then the S2SP how-to once, labelled
 * as the proxy's. A table tool's entry in `tools/list` carries only the S2SP parameters in their
 * short form and one line pointing here, as a server's with `toolGuidance: "instructions"` does:
 * the how-to in each table tool's description cost about 550 o200k tokens per tool on every
 * listing.
 *
 * @module
 */

import { PROXY_INSTRUCTIONS } from '../advice.js';
import type { S2SPCall } from './s2sp-call.js';

/**
 * The instructions the proxy serves a downstream session.
 *
 * @param upstream - the upstream's own instructions, kept first and unchanged
 * @param s2sp - the proxy's S2SP seam, whose paragraph (`S2SP.instructions`) carries its TTL
 * @throws S2SPError `invalid_config` while the proxy has no data-plane address (as listing a
 *   table tool does): call `listen()` or set `publicUrl` first
 */
export function proxyInstructions(upstream: string | undefined, s2sp: () => S2SPCall): string {
  const own = `${PROXY_INSTRUCTIONS.label} ${s2sp().instructions} ${PROXY_INSTRUCTIONS.parameters}`;
  return upstream?.trim() ? `${upstream}\n\n${own}` : own;
}
