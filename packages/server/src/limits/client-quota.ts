import { S2SPError } from '@s2sp/core';
import { byteSize, parseOptions, positiveInteger } from '@s2sp/core/options';
import { z } from 'zod';
import { redeemOrWait } from '../advice.js';
import { readToolCall, type ToolCall } from '../mcp/tool-call.js';

/**
 * The request header through which the convenience server's `/mcp` endpoint tells tools the
 * caller's socket address. Any value a client sends is replaced there, and the value is sealed
 * with a per-process secret, so on any other transport (the user's own, the proxy's) a client
 * cannot forge it either: an unsealed value is ignored.
 */
export const CLIENT_ADDRESS_HEADER = 'x-s2sp-client-address';

const SEAL = `${globalThis.crypto.randomUUID()} `;

/** The header value for `address`, sealed for {@link clientKey}. */
export function sealClientAddress(address: string): string {
  return `${SEAL}${address}`;
}

/** Default of `S2SPOptions.maxEntriesPerClient`. */
export const DEFAULT_MAX_ENTRIES_PER_CLIENT = 1000;

/** The rule and default of `maxEntriesPerClient`, for `createS2SP` and the proxy. */
export const MaxEntriesPerClientSchema = positiveInteger()
  .default(DEFAULT_MAX_ENTRIES_PER_CLIENT)
  .describe(
    'Cache entries one client may hold (per process): unredeemed async results and the unread pages of paged ones. Beyond it the resource tool answers `store_full` to that client only.',
  );

/**
 * The rule of `maxBytesPerClient`, for `createS2SP` and the proxy: no limit unless set (the
 * proxy sets one).
 */
export const MaxBytesPerClientSchema = byteSize()
  .optional()
  .meta({ defaultText: 'no limit' })
  .describe(
    'Bytes of cached rows one client may hold (per process), results and unread pages together; beyond it the resource tool answers `store_full` to that client only. Default: no limit of its own (the store’s budget).',
  );

const ClientQuotaOptionsSchema = z.object({
  maxEntries: MaxEntriesPerClientSchema,
  maxBytes: MaxBytesPerClientSchema,
});

/**
 * Who a quota counts a call against: the authenticated client when there is one, else the
 * socket address the `/mcp` endpoint saw, else the MCP session (2025-era sessions), else one
 * shared bucket.
 *
 * @param call - the tool handler's `ctx` (MCP SDK v2) or `extra` (v1)
 */
export function clientKey(call: ToolCall | undefined): string {
  const view = readToolCall(call);
  if (view.clientId) return `client:${view.clientId}`;
  const sealed = view.header(CLIENT_ADDRESS_HEADER);
  if (typeof sealed === 'string' && sealed.startsWith(SEAL) && sealed.length > SEAL.length)
    return `address:${sealed.slice(SEAL.length)}`;
  if (view.sessionId) return `session:${view.sessionId}`;
  return 'anonymous';
}

/** Live cache entries and their bytes per client, in this process. */
export interface ClientQuota {
  /**
   * Counts a new entry of `bytes` against `client` until it is taken or its TTL passes.
   * @throws S2SPError `store_full` when the client already holds its limit of entries, or the
   *   entry would take it over its limit of bytes
   */
  reserve(client: string, key: string, ttlMs: number, bytes?: number): void;
  /** The entry under `key` was taken: it no longer counts. */
  release(key: string): void;
  /**
   * The entry under `key` was taken by a retry-safe redemption (PROTOCOL §7.10) and stays in the
   * store for repeats: it counts for `ms` more (from now) at most, then no longer. It never counts
   * longer than it already would: not past its TTL, and a repeated take (which calls this again)
   * does not restart the hold. A key not counted is ignored.
   */
  hold(key: string, ms: number): void;
  /** Entries counted against `client` now. */
  count(client: string): number;
  /** Bytes counted against `client` now. */
  bytes(client: string): number;
}

/**
 * Bounds how many unredeemed results one client can hold, so that one caller cannot fill the
 * shared cache and block async mode for everyone for the TTL. Counts per process:
 * with several replicas each enforces its own share, and an entry taken on another replica
 * counts here until its TTL passes.
 *
 * @param options - the limit per client
 * @throws S2SPError `invalid_config` for a non-positive limit
 */
export function createClientQuota(
  options: { readonly maxEntries?: number; readonly maxBytes?: number | undefined } = {},
): ClientQuota {
  const { maxEntries, maxBytes } = parseOptions(ClientQuotaOptionsSchema, options, {
    factory: 'createClientQuota',
  });
  const byClient = new Map<string, { keys: Set<string>; bytes: number }>();
  const byKey = new Map<
    string,
    { client: string; bytes: number; until: number; timer: ReturnType<typeof setTimeout> }
  >();
  const countUntil = (key: string, until: number) => {
    const timer = setTimeout(() => release(key), Math.max(0, until - Date.now()));
    (timer as { unref?: () => void }).unref?.();
    return timer;
  };

  const release = (key: string) => {
    const held = byKey.get(key);
    if (!held) return;
    byKey.delete(key);
    clearTimeout(held.timer);
    const owner = byClient.get(held.client);
    if (!owner) return;
    owner.keys.delete(key);
    owner.bytes -= held.bytes;
    if (owner.keys.size === 0) byClient.delete(held.client);
  };

  return {
    reserve(client, key, ttlMs, bytes = 0) {
      const owner = byClient.get(client) ?? { keys: new Set<string>(), bytes: 0 };
      if (owner.keys.size >= maxEntries) {
        throw new S2SPError(
          'store_full',
          `This client already holds ${owner.keys.size} unredeemed results and unread pages (its limit). ${redeemOrWait}`,
        );
      }
      if (maxBytes !== undefined && owner.bytes + bytes > maxBytes) {
        throw new S2SPError(
          'store_full',
          `This client's results hold ${owner.bytes} bytes, this one ${bytes}: over its limit of ${maxBytes}. ${redeemOrWait}`,
        );
      }
      owner.keys.add(key);
      owner.bytes += bytes;
      byClient.set(client, owner);
      const until = Date.now() + ttlMs;
      byKey.set(key, { client, bytes, until, timer: countUntil(key, until) });
    },
    release,
    hold(key, ms) {
      const held = byKey.get(key);
      // Only ever sooner: a repeated redemption restarted the hold, and the client got
      // store_full for its grace after the entry was gone.
      const until = Date.now() + ms;
      if (!held || until >= held.until) return;
      clearTimeout(held.timer);
      byKey.set(key, { ...held, until, timer: countUntil(key, until) });
    },
    count: (client) => byClient.get(client)?.keys.size ?? 0,
    bytes: (client) => byClient.get(client)?.bytes ?? 0,
  };
}
