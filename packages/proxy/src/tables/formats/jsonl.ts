/**
 * JSON Lines: one JSON object per line; blank lines are skipped.
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { pacer, runNow, type Steps } from './parse-steps.js';

/** The rows, or the first line that is not a JSON object. */
export type JsonLinesParse =
  | { readonly ok: true; readonly rows: Row[] }
  | { readonly ok: false; readonly reason: string };

/**
 * Parses JSON Lines.
 *
 * @param limits.maxRows - most lines; more is refused
 */
export function parseJsonLines(text: string, limits: { readonly maxRows: number }): JsonLinesParse {
  return runNow(jsonLinesSteps(text, limits));
}

/** {@link parseJsonLines}, pausing between lines (see `parse-steps.ts`). */
export function* jsonLinesSteps(
  text: string,
  limits: { readonly maxRows: number },
): Steps<JsonLinesParse> {
  const pace = pacer();
  const rows: Row[] = [];
  let line = 0;
  let from = 0;
  while (from <= text.length) {
    const lf = text.indexOf('\n', from);
    const end = lf < 0 ? text.length : lf;
    if (pace.due(end - from + 1)) yield;
    line++;
    const raw = text.slice(from, end).trim();
    from = end + 1;
    if (raw === '') continue;
    if (rows.length >= limits.maxRows) {
      return {
        ok: false,
        reason: `it has more than ${limits.maxRows.toLocaleString('en-US')} lines`,
      };
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return { ok: false, reason: `line ${line} is not valid JSON` };
    }
    if (!isPlainObject(value)) return { ok: false, reason: `line ${line} is not a JSON object` };
    rows.push(value);
  }
  if (rows.length === 0) return { ok: false, reason: 'it has no lines' };
  return { ok: true, rows };
}

/**
 * The texts of the lines of JSON Lines that are not blank, each trimmed (slices of `text`, not
 * copies); `undefined` past `maxRows` lines. Pauses between lines.
 */
export function* lineTextsSteps(text: string, maxRows: number): Steps<string[] | undefined> {
  const pace = pacer();
  const lines: string[] = [];
  let from = 0;
  while (from <= text.length) {
    const lf = text.indexOf('\n', from);
    const end = lf < 0 ? text.length : lf;
    if (pace.due(end - from + 1)) yield;
    const line = text.slice(from, end).trim();
    from = end + 1;
    if (line === '') continue;
    if (lines.length >= maxRows) return undefined;
    lines.push(line);
  }
  return lines;
}
