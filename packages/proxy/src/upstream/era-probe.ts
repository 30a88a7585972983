/**
 * Which era an upstream speaks: SDK v2's `auto` negotiation (a `server/discover` probe, with its
 * fallback to the 2025 `initialize`), on a connection of its own that is then closed. Done once
 * per proxy process and upstream (`upstream-era.ts` keeps the verdict).
 *
 * @module
 */
import { type Implementation, ModernClient, type PriorDiscovery } from '../mcp-sdk.js';
import type { StartDeadline } from './start-deadline.js';
import type { OpenedTransport } from './upstream-target.js';

/** Options for {@link probeEra}. */
export interface EraProbeOptions {
  /** How the proxy introduces itself upstream. */
  readonly clientInfo: Implementation;
  /** Opens a fresh transport to the upstream (SDK v2's). */
  readonly open: () => OpenedTransport;
  /** Whether the upstream is a command on stdio (rather than an HTTP URL). */
  readonly stdio: boolean;
  /** The start-up limit of this attempt, shared with the handshake that follows. */
  readonly deadline: StartDeadline;
}

/**
 * Probes the upstream's era.
 *
 * @param options - who the proxy is, how to reach the upstream, and the start-up limit
 * @returns the 2026-07-28 server's `server/discover` answer (`modern`), or `legacy`
 */
export async function probeEra(options: EraProbeOptions): Promise<PriorDiscovery> {
  const { deadline } = options;
  const prober = new ModernClient(options.clientInfo, {
    versionNegotiation: { mode: 'auto', probe: { timeoutMs: deadline.left() } },
  });
  const transport = options.open();
  try {
    await prober.connect(transport.transport as never, deadline.options());
    const discover = prober.getDiscoverResult();
    return prober.getProtocolEra() === 'modern' && discover
      ? { kind: 'modern', discover }
      : { kind: 'legacy' };
  } catch (error) {
    // A stdio server that exits or errs on a request before `initialize` is a 2025 one; the
    // 2025 handshake then says what is wrong, if anything. Past the start-up limit there is
    // no verdict (a slow server of either era): the start fails.
    if (options.stdio && deadline.left() > 0) return { kind: 'legacy' };
    throw error;
  } finally {
    await prober.close().catch(() => {});
    await transport.transport.close().catch(() => {});
  }
}
