/**
 * The text of each element of a JSON array, found by one linear scan (strings skipped, brackets
 * counted) without building anything: the proxy hands these slices of the upstream's text to the
 * store (`RowJson`), which then stores a large table without stringifying it again.
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import { isPlainObject, setColumn } from '@s2sp/core/json';
import { pacer, runNow, type Steps } from './parse-steps.js';

/** JSON white space, as a UTF-16 code unit or a byte. */
export const WS = (c: number | undefined) => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * The one scan behind {@link arrayElementTexts} and {@link arrayElementRanges}: whether the `n`
 * code units (or bytes) read by `at` are a JSON array of objects (after white space, and nothing
 * but white space after it), calling `element` with each object's start (its `{`) and end (just
 * after its `}`). Strings are skipped whole (`quote` finds the next `"` from an index), so a
 * bracket inside one never counts and a multi-byte character is never split.
 */
function* scanObjects(
  n: number,
  at: (i: number) => number | undefined,
  quote: (from: number) => number,
  element: (start: number, end: number) => void,
): Steps<boolean> {
  const pace = pacer();
  let i = 0;
  while (i < n && WS(at(i))) i++;
  if (at(i) !== 91 /* [ */) return false;
  i++;
  let count = 0;
  for (;;) {
    while (i < n && WS(at(i))) i++;
    if (at(i) === 93 /* ] */ && count === 0) {
      i++;
      while (i < n && WS(at(i))) i++;
      return i === n;
    }
    if (at(i) !== 123 /* { */) return false;
    const start = i;
    let depth = 0;
    while (i < n) {
      // One element may be most of the text: it pauses too.
      if (pace.due()) yield;
      const c = at(i);
      if (c === 34) {
        // Past the string: the next quote not escaped by an odd number of backslashes.
        for (let from = i + 1; ; ) {
          const q = quote(from);
          if (q < 0) return false;
          let backslashes = 0;
          for (let k = q - 1; at(k) === 92; k--) backslashes++;
          if (backslashes % 2 === 0) {
            i = q + 1;
            break;
          }
          from = q + 1;
        }
        continue;
      }
      if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      }
      i++;
    }
    if (depth !== 0) return false;
    element(start, i);
    count++;
    while (i < n && WS(at(i))) i++;
    const c = at(i);
    i++;
    if (c === 93) {
      while (i < n && WS(at(i))) i++;
      return i === n;
    }
    if (c !== 44 /* , */) return false;
  }
}

/**
 * The texts of the objects of the array that `text` is (after white space), or `undefined` when
 * `text` is not such an array (then nothing is reused and nothing is lost).
 */
export function arrayElementTexts(text: string): string[] | undefined {
  return runNow(elementTextsSteps(text));
}

/** {@link arrayElementTexts}, pausing as it goes (see `parse-steps.ts`). */
export function* elementTextsSteps(text: string): Steps<string[] | undefined> {
  const out: string[] = [];
  const ok = yield* scanObjects(
    text.length,
    (i) => text.charCodeAt(i),
    (from) => text.indexOf('"', from),
    (start, end) => out.push(text.slice(start, end)),
  );
  return ok ? out : undefined;
}

/** Where each element of a JSON array given as UTF-8 bytes starts (its `{`) and ends. */
export interface ElementRanges {
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
}

/**
 * {@link arrayElementTexts} on the array's UTF-8 bytes, without decoding them: where each object
 * element is, or `undefined` when `b` is not a JSON array of objects (the same rule and scan).
 */
export function arrayElementRanges(b: Uint8Array): ElementRanges | undefined {
  return runNow(elementRangesSteps(b));
}

/** {@link arrayElementRanges}, pausing as it goes (see `parse-steps.ts`). */
export function* elementRangesSteps(b: Uint8Array): Steps<ElementRanges | undefined> {
  const starts: number[] = [];
  const ends: number[] = [];
  const ok = yield* scanObjects(
    b.length,
    (i) => b[i],
    (from) => b.indexOf(34, from),
    (start, end) => {
      starts.push(start);
      ends.push(end);
    },
  );
  return ok ? { starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) } : undefined;
}

/** Longest kept string value shared between rows (the abstract's values repeat). */
const MAX_SHARED_CHARS = 64;
/** Most distinct values shared, so a column of unique values cannot grow the map forever. */
const MAX_SHARED_VALUES = 10_000;

/**
 * Shares equal short string values between the rows of one table (an abstract column's values
 * repeat: one string each, not one per row); any other value comes back as it is. A shared value
 * is a copy: a value sliced out of the upstream's text (a CSV cell) would hold the whole text.
 */
export function valueSharer(): <T>(value: T) => T {
  const shared = new Map<string, string>();
  return <T>(value: T): T => {
    if (typeof value !== 'string' || value.length > MAX_SHARED_CHARS) return value;
    const known = shared.get(value);
    if (known !== undefined) return known as T;
    if (shared.size >= MAX_SHARED_VALUES) return value;
    const copy = JSON.parse(JSON.stringify(value)) as string;
    shared.set(copy, copy);
    return copy as T;
  };
}

/**
 * The rows of a JSON array given as its elements' texts ({@link arrayElementTexts}), each parsed
 * on its own and kept with only the values of `keep` (and whole at the indices of `whole`). A
 * member not kept is there, as `null`, only in the first row that has it: the rows still give
 * the table's columns in first-seen order, and nothing else. For an async split, whose store
 * takes the rows' texts and whose abstract reads only its own columns, this holds the table in a
 * fraction of the memory of `JSON.parse` of the whole array: each row's parsed values
 * are garbage as soon as the next is read, and equal short kept strings are shared. `undefined`
 * when an element is not a JSON object. Pauses between rows (see `parse-steps.ts`).
 *
 * @param texts - one JSON object per row (`at(i)` may decode it on demand: each is read once)
 * @param keep - the columns whose values are kept
 * @param whole - row indices kept whole (the rows the catalogue samples)
 */
export function* rowsKeepingSteps(
  texts: { readonly length: number; at(index: number): string | undefined },
  keep: ReadonlySet<string>,
  whole: ReadonlySet<number>,
): Steps<Row[] | undefined> {
  const pace = pacer();
  const rows: Row[] = [];
  const seen = new Set<string>();
  const share = valueSharer();
  for (let i = 0; i < texts.length; i++) {
    let parsed: unknown;
    const text = texts.at(i) as string;
    if (pace.due(text.length)) yield;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isPlainObject(parsed)) return undefined;
    if (whole.has(i)) {
      for (const key of Object.keys(parsed)) seen.add(key);
      rows.push(parsed);
      continue;
    }
    const row: Row = {};
    for (const key of Object.keys(parsed)) {
      if (keep.has(key)) setColumn(row, key, share(parsed[key]));
      else if (!seen.has(key)) {
        seen.add(key);
        setColumn(row, key, null);
      }
    }
    rows.push(row);
  }
  return rows;
}
