/**
 * A 2026-07-28 result's `_meta` describes the hop it came on: the upstream's `serverInfo`
 * (`io.modelcontextprotocol/serverInfo`). Toward its clients the proxy is the server, and a 2025
 * client talking to the upstream directly would not see it, so the proxy does not pass it on.
 *
 * @module
 */
import { SERVER_INFO_META_KEY } from '../mcp-sdk.js';

/**
 * Drops the hop's key from a result's `_meta`, in place; a `_meta` left empty goes too.
 *
 * @param result - an upstream's result, as it came
 */
export function dropHopMeta(result: Record<string, unknown>): void {
  const meta = result._meta;
  if (typeof meta !== 'object' || meta === null || !(SERVER_INFO_META_KEY in meta)) return;
  const { [SERVER_INFO_META_KEY]: _hop, ...kept } = meta as Record<string, unknown>;
  if (Object.keys(kept).length === 0) delete result._meta;
  else result._meta = kept;
}
