/**
 * Which encoding one call's abstract is written in: the server's default, unless the host asked
 * for another in the request's `_meta` (PROTOCOL §7.5).
 *
 * @module
 */

import { PROTOCOL } from '@s2sp/core';
import type { AbstractEncoding } from './table-pages.js';

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
  const asked = meta?.[PROTOCOL.abstractEncodingMeta];
  // A value this server does not know is ignored, as readers ignore unknown members (§7).
  return PROTOCOL.abstractEncodings.find((known) => known === asked) ?? serverDefault;
}
