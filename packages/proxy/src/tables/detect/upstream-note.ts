/**
 * What the upstream says about its own answer beside the table: that it is partial (`truncated`,
 * `hasMore`, a count above the rows it sent, a next cursor) and its hint, message or warning.
 * These are small members of the objects around the table (`{"rows": [...], "rowCount": 150,
 * "truncated": true, "hint": "…"}`); the proxy returns the table as an S2SP result, so without
 * this a model would read `total_rows: 22` and never learn that the upstream held 150.
 *
 * @module
 */

import { isPlainObject } from '@s2sp/core/json';
import { parseJsonPointer, resolveJsonPointer } from '../json-pointer.js';

/** What the upstream said about its answer, as its own members. */
export interface UpstreamNote {
  /** The members saying the answer is partial, with their values (`["truncated", true]`). */
  readonly partial: readonly (readonly [string, unknown])[];
  /** The upstream's count of rows, when it is above the rows it sent. */
  readonly total?: number;
  /** The upstream's hint, message or warning texts, by member name, cut to `MAX_NOTE_CHARS`. */
  readonly notes: readonly (readonly [string, string])[];
}

/** Characters of one upstream text (a hint) passed on to the model; the rest is cut. */
export const MAX_NOTE_CHARS = 500;
/** Characters of a cursor value passed on. */
const MAX_CURSOR_CHARS = 200;

// Member names compared lower-case without `_` and `-` (`has_more`, `hasMore`, `has-more`).
const TRUNCATED = new Set([
  'truncated',
  'istruncated',
  'partial',
  'incomplete',
  'incompleteresults',
]);
const MORE = new Set(['hasmore', 'more', 'hasnextpage', 'morerows', 'moreresults']);
const TOTAL = new Set([
  'rowcount',
  'total',
  'totalcount',
  'totalrows',
  'totalresults',
  'totalitems',
  'count',
]);
const CURSOR = new Set(['nextcursor', 'cursor', 'nextpagetoken', 'nexttoken', 'nextpage', 'next']);
const NOTE = new Set(['hint', 'message', 'warning', 'notice', 'note']);

const normal = (key: string) => key.toLowerCase().replace(/[_-]/g, '');

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${(text.length - max).toLocaleString('en-US')} more characters)`;
}

/**
 * The objects around the table at `pointer` in `document`, nearest first: each object the
 * pointer passes through, and the table's own object when it is one (a header-plus-arrays
 * table's `{"columns", "rows", "rowCount"}`).
 */
function around(document: unknown, pointer: string): Record<string, unknown>[] {
  const tokens = parseJsonPointer(pointer);
  const out: Record<string, unknown>[] = [];
  for (let depth = tokens.length; depth >= 0; depth--) {
    const value = resolveJsonPointer(document, tokens.slice(0, depth));
    if (isPlainObject(value)) out.push(value);
  }
  return out;
}

/**
 * What the upstream says about its answer (see the module comment), or `undefined` when it says
 * nothing: the scalar members of the objects around the table, the nearest one of each kind.
 *
 * @param document - the parsed JSON document that holds the table
 * @param pointer - where the table is in it
 * @param rows - how many rows the proxy found there
 */
export function upstreamNote(
  document: unknown,
  pointer: string,
  rows: number,
): UpstreamNote | undefined {
  const partial: [string, unknown][] = [];
  const notes: [string, string][] = [];
  const seen = new Set<Set<string>>();
  let total: number | undefined;
  for (const object of around(document, pointer)) {
    for (const [key, value] of Object.entries(object)) {
      const name = normal(key);
      const kind = [TRUNCATED, MORE, TOTAL, CURSOR, NOTE].find((set) => set.has(name));
      if (!kind || (kind !== NOTE && seen.has(kind))) continue;
      if ((kind === TRUNCATED || kind === MORE) && value === true) partial.push([key, true]);
      else if (kind === TOTAL && Number.isSafeInteger(value) && (value as number) > rows) {
        total = value as number;
        partial.push([key, value]);
      } else if (
        kind === CURSOR &&
        (typeof value === 'number' || (typeof value === 'string' && value !== ''))
      ) {
        partial.push([key, typeof value === 'string' ? cut(value, MAX_CURSOR_CHARS) : value]);
      } else if (kind === NOTE && typeof value === 'string' && value.trim() !== '') {
        if (!notes.some(([k]) => normal(k) === name)) notes.push([key, cut(value, MAX_NOTE_CHARS)]);
        continue;
      } else continue;
      seen.add(kind);
    }
  }
  if (partial.length === 0 && notes.length === 0) return undefined;
  return { partial, ...(total !== undefined && { total }), notes };
}

/**
 * The note as the model reads it, after the abstract: the facts in the proxy's words, the
 * upstream's own texts quoted as JSON strings and labelled as the upstream's.
 *
 * @param note - what the upstream said
 * @param rows - the rows the S2SP result holds (the upstream's answer)
 */
export function upstreamNoteText(note: UpstreamNote, rows: number): string {
  const parts: string[] = [];
  if (note.partial.length > 0) {
    const members = note.partial.map(
      ([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`,
    );
    const count =
      note.total === undefined
        ? `${rows.toLocaleString('en-US')} rows`
        : `${rows.toLocaleString('en-US')} of ${note.total.toLocaleString('en-US')} rows`;
    parts.push(
      `its answer is partial — ${count} (${members.join(', ')}); the abstract and resource_url hold only the rows it sent.`,
    );
  }
  if (note.notes.length > 0) {
    const texts = note.notes.map(
      ([key, text]) => `${JSON.stringify(key)}: ${JSON.stringify(text)}`,
    );
    parts.push(`Its own words (the upstream's text, not the proxy's): ${texts.join('; ')}.`);
  }
  return `Upstream says: ${parts.join(' ')}`;
}
