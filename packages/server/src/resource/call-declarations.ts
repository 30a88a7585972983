/**
 * What a host declares, per call, in the `tools/call` request's `_meta`: the encoding its model
 * reads an abstract in (PROTOCOL §7.5) and where it reads a sync result's body from (§7.11). A
 * value this server does not know is ignored, as readers ignore unknown members (§7).
 *
 * @module
 */

import { PROTOCOL } from '@s2sp/core';
import type { AbstractEncoding } from './table-pages.js';

/** Where one sync result carries its body (§7.11). */
export type SyncBodyPlace = (typeof PROTOCOL.syncBodyPlaces)[number];

/** The declared value of `key` when it is one of `known`, else `undefined`. */
function declared<T extends string>(
  meta: Readonly<Record<string, unknown>> | undefined,
  key: string,
  known: readonly T[],
): T | undefined {
  const asked = meta?.[key];
  return known.find((value) => value === asked);
}

/**
 * The encoding for one call's result text.
 *
 * @param serverDefault - the server's `abstractEncoding` option
 * @param meta - the tool call's request `_meta`, if any
 * @example callEncoding('json', { 'io.github.s2sp/abstract-encoding': 'compact' }) // 'compact'
 */
export function callEncoding(
  serverDefault: AbstractEncoding,
  meta: Readonly<Record<string, unknown>> | undefined,
): AbstractEncoding {
  return declared(meta, PROTOCOL.abstractEncodingMeta, PROTOCOL.abstractEncodings) ?? serverDefault;
}

/**
 * Where one sync result carries its body: `both` (§2, the default) unless the host declared that
 * it reads the body from `structuredContent`.
 *
 * @param meta - the tool call's request `_meta`, if any
 * @example callSyncBody({ 'io.github.s2sp/sync-body': 'structured' }) // 'structured'
 */
export function callSyncBody(meta: Readonly<Record<string, unknown>> | undefined): SyncBodyPlace {
  return declared(meta, PROTOCOL.syncBodyMeta, PROTOCOL.syncBodyPlaces) ?? 'both';
}
