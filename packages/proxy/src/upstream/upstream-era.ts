/**
 * Which protocol era each upstream speaks, found once per proxy process. Every upstream session
 * (the one opened at start, and one per client) would otherwise probe again: over stdio that is
 * one more process started per session. The verdict is kept in memory only, not in the state
 * file: an upstream may be upgraded between two runs of the proxy, and one probe per run is
 * cheap. A failed probe is not kept, so the next session probes again.
 *
 * @module
 */
import type { PriorDiscovery } from '../mcp-sdk.js';
import type { UpstreamTarget } from './upstream-target.js';

const verdicts = new Map<string, Promise<PriorDiscovery>>();

/**
 * The era verdict for `target`: the one found earlier in this process, else `probe`'s.
 *
 * @param target - the upstream (its command, arguments, environment, or URL and headers)
 * @param probe - finds the verdict (SDK v2's `auto` negotiation)
 */
export function eraVerdict(
  target: UpstreamTarget,
  probe: () => Promise<PriorDiscovery>,
): Promise<PriorDiscovery> {
  const key = JSON.stringify(target);
  let verdict = verdicts.get(key);
  if (!verdict) {
    verdict = probe();
    verdicts.set(key, verdict);
    verdict.catch(() => verdicts.delete(key));
  }
  return verdict;
}
