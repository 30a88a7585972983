/**
 * Reading a compact JSON array of objects while keeping only some values (`FindTableOptions.keep`),
 * from its text or from its UTF-8 bytes, and handing the rows' texts or bytes over once.
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import { sampledRows } from '../column-catalogue.js';
import { elementRangesSteps, elementTextsSteps, rowsKeepingSteps } from '../formats/json-rows.js';
import type { Steps } from '../formats/parse-steps.js';
import type { RowBytes } from '../s2sp-call.js';

/**
 * Hands `texts` over once. Made out here so that it holds nothing else: a closure made in
 * findTable would hold its scope, and with it the upstream's whole result, for as long as the
 * found table lives; the store keeps what it needs of the texts, the rest can go.
 */
export function handOverOnce<T>(texts: T): () => T | undefined {
  let held: T | undefined = texts;
  return () => {
    const out = held;
    held = undefined;
    return out;
  };
}

/**
 * A compact JSON array of objects read with only the `keep` columns' values (`rowsKeepingSteps`),
 * with its rows' texts; `undefined` when the text is not one (it is then parsed whole). Line
 * breaks rule it out: a stored row is one line, and its text is stored as it is. Pauses as it
 * goes (see `parse-steps.ts`).
 */
export function* readKeeping(
  text: string,
  keep: readonly string[],
): Steps<{ rows: Row[]; texts: string[] } | undefined> {
  if (!text.startsWith('[') || text.includes('\n') || text.includes('\r')) return undefined;
  const texts = yield* elementTextsSteps(text);
  if (!texts) return undefined;
  const rows = yield* rowsKeepingSteps(texts, new Set(keep), new Set(sampledRows(texts.length)));
  return rows && { rows, texts };
}

/**
 * {@link readKeeping} on a text's UTF-8 bytes: the rows found by scanning the bytes, each decoded
 * and parsed on its own (a string of one row at a time, never of the table), with where each row
 * is; `undefined` when the bytes are not a compact JSON array of objects.
 */
export function* readKeepingBytes(
  bytes: Uint8Array,
  keep: readonly string[],
): Steps<{ rows: Row[]; source: RowBytes } | undefined> {
  if (bytes.indexOf(10) >= 0 || bytes.indexOf(13) >= 0) return undefined;
  const ranges = yield* elementRangesSteps(bytes);
  if (!ranges) return undefined;
  const { starts, ends } = ranges;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const texts = {
    length: starts.length,
    at: (i: number) => view.toString('utf8', starts[i], ends[i]),
  };
  const rows = yield* rowsKeepingSteps(texts, new Set(keep), new Set(sampledRows(starts.length)));
  return rows && { rows, source: { bytes, starts, ends } };
}
