/**
 * An upstream's S2SP `_meta` keys never leave the proxy as the proxy's own. Toward its clients the
 * proxy is the S2SP server: a savings receipt (`s2sp/receipt`), an error code
 * (`s2sp/error-code`) or anything else under S2SP's names on a result is something the proxy
 * states. An upstream that wrote them (hostile, or an S2SP server itself) would otherwise have a
 * client, and the proxy's own spans and metrics, take its figures and codes for the proxy's. So
 * they are dropped from every result the upstream answers, before anything reads it; the
 * upstream's other `_meta` keys go on as they came.
 *
 * @module
 */

import { PROTOCOL } from '@s2sp/core';

/** Key prefixes that are S2SP's: `s2sp/` (PROTOCOL §7) and the extension's `io.github.s2sp/`. */
const S2SP_META_PREFIXES: readonly string[] = [PROTOCOL.receiptMeta, PROTOCOL.extensionId].map(
  (name) => `${name.slice(0, name.indexOf('/'))}/`,
);

/** True for a `_meta` key under S2SP's names (in any case: no look-alike passes). */
export function isS2SPMetaKey(key: string): boolean {
  const lower = key.toLowerCase();
  return S2SP_META_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/**
 * Drops the S2SP keys of a result's `_meta`, in place (a `_meta` left empty goes too).
 *
 * @returns how many keys were dropped
 */
export function dropS2SPMeta(result: Record<string, unknown>): number {
  const meta = result._meta;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return 0;
  const kept: Record<string, unknown> = {};
  let dropped = 0;
  for (const key of Object.keys(meta)) {
    if (isS2SPMetaKey(key)) dropped++;
    else
      Object.defineProperty(kept, key, {
        value: (meta as Record<string, unknown>)[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  if (dropped === 0) return 0;
  if (Object.keys(kept).length === 0) delete result._meta;
  else result._meta = kept;
  return dropped;
}
