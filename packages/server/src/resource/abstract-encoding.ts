/**
 * Which encoding one call's abstract is written in: the server's default, unless the host asked
 * for another in the request's `_meta` (PROTOCOL §7.5).
 *
 * @module
 */

import { PROTOCOL } from '@s2sp/core';
import type { AbstractEncoding } from './table-pages.js';

/**
 * The request `_meta` key by which a host declares the encoding it reads: `"compact"` (it reads,
 * or expands, the compact rows) or `"json"` (PROTOCOL §2 only). Any other value is ignored.
 */
export const ABSTRACT_ENCODING_META = PROTOCOL.abstractEncodingMeta;

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
  const asked = meta?.[ABSTRACT_ENCODING_META];
  // A value this server does not know is ignored, as readers ignore unknown members (§7).
  return asked === 'compact' || asked === 'json' ? asked : serverDefault;
}
