import { z } from 'zod';
import { PROTOCOL } from './protocol.js';

/**
 * What a server declares under `capabilities.experimental.s2sp` at MCP initialisation (PROTOCOL
 * §7.7), so that a client can tell an S2SP server from a plain one before calling a tool. Readers
 * ignore members they do not know.
 */
export const S2SPCapabilitySchema = z.looseObject({
  /** The version of this wire contract, e.g. `"0.2"`. */
  version: z.string(),
  /** The data plane's path prefix, `/s2sp/data/`: `resource_url`s name it. */
  dataPlanePath: z.string(),
  /** The S2SP tool kinds this server has: `resource`, `consumer`, or both. */
  roles: z.array(z.string()).optional(),
});

/** The S2SP capability a server declares (PROTOCOL §7.7). */
export type S2SPCapability = z.infer<typeof S2SPCapabilitySchema>;

function declaredUnder(holder: unknown, key: string): S2SPCapability | undefined {
  if (typeof holder !== 'object' || holder === null) return undefined;
  const parsed = S2SPCapabilitySchema.safeParse((holder as Record<string, unknown>)[key]);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Reads the S2SP capability from a server's MCP capabilities (`client.getServerCapabilities()`),
 * or `undefined` when the server does not declare one (a plain MCP server, or an S2SP server that
 * declares nothing, such as the Python reference: tools still say what they are in their
 * parameters). A server may declare it both ways (PROTOCOL §7.7): as the 2026-07-28 extension
 * `extensions["io.github.s2sp/s2sp"]`, read first, and as `experimental.s2sp` for 2025 clients.
 *
 * @param capabilities - the server's capabilities as the MCP client received them
 */
export function readS2SPCapability(capabilities: unknown): S2SPCapability | undefined {
  if (typeof capabilities !== 'object' || capabilities === null) return undefined;
  const { extensions, experimental } = capabilities as {
    extensions?: unknown;
    experimental?: unknown;
  };
  return (
    declaredUnder(extensions, PROTOCOL.extensionId) ??
    declaredUnder(experimental, PROTOCOL.capabilityKey)
  );
}
