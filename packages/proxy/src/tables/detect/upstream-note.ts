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
/** Count names that count whatever their object holds: `total`, `count`, `totalCount`. */
const GENERIC_COUNTS = new Set(['total', 'count', 'totalcount']);
/** Nouns of counts that count rows, whatever the table is called (`rowCount`, `totalResults`). */
const ROW_NOUNS = new Set(['row', 'record', 'result', 'item', 'entry', 'hit', 'match']);
/** Names of arrays that hold a query's or a search's rows, which a row count counts. */
const ROW_ARRAYS = new Set([
  'rows',
  'data',
  'values',
  'records',
  'results',
  'items',
  'entries',
  'hits',
  'matches',
]);
const CURSOR = new Set(['nextcursor', 'cursor', 'nextpagetoken', 'nexttoken', 'nextpage', 'next']);
const NOTE = new Set(['hint', 'message', 'warning', 'notice', 'note']);

const normal = (key: string) => key.toLowerCase().replace(/[_-]/g, '');

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${(text.length - max).toLocaleString('en-US')} more characters)`;
}

/** A word's singular, as count names and array names write it (`entries` → `entry`). */
function singular(word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/**
 * What a member name counts, when it is a count's name: `""` for a generic count
 * ({@link GENERIC_COUNTS}), else its noun in the singular (`rowCount`, `totalRows`, `num_rows` →
 * `row`; `columnCount` → `column`); `undefined` when it is not a count's name.
 */
function countNoun(name: string): string | undefined {
  if (GENERIC_COUNTS.has(name)) return '';
  const noun =
    /^(?:total|numberof|num)(.+)$/.exec(name)?.[1] ?? /^(.+)(?:count|total)$/.exec(name)?.[1];
  return noun === undefined ? undefined : singular(noun);
}

/** One object around the table, with what lies between it and the table. */
interface Around {
  readonly object: Record<string, unknown>;
  /** Its member on the way to the table; `undefined` when it is the table's own object. */
  readonly member?: string;
  /** The way from it to the table passes through an array (an element of a list of results). */
  readonly throughArray: boolean;
}

/**
 * The objects around the table at `pointer` in `document`, nearest first: each object the
 * pointer passes through, and the table's own object when it is one (a header-plus-arrays
 * table's `{"columns", "rows", "rowCount"}`).
 */
function around(document: unknown, pointer: string): Around[] {
  const tokens = parseJsonPointer(pointer);
  const out: Around[] = [];
  let throughArray = false;
  for (let depth = tokens.length; depth >= 0; depth--) {
    const value = resolveJsonPointer(document, tokens.slice(0, depth));
    if (isPlainObject(value)) out.push({ object: value, member: tokens[depth], throughArray });
    else if (Array.isArray(value) && depth < tokens.length) throughArray = true;
  }
  return out;
}

const isArrayOfObjects = (value: unknown) =>
  Array.isArray(value) && value.length > 0 && value.every(isPlainObject);

/**
 * Whether a count named `name` in `at` counts the table's rows (the one rule, in the guide):
 *
 * - a count whose noun names the table counts it: `columnCount` beside `columns`, `totalUsers`
 *   beside `users`, and a row count (`rowCount`, `totalResults`, `num_rows`…) beside an array
 *   named for rows (`rows`, `data`, `results`, `items`…, and a header-plus-arrays table);
 * - a generic count (`total`, `count`, `totalCount`) counts the table only where nothing else
 *   can be meant: no array between it and the table, and no other array of objects beside the
 *   way to it, in its object or any object between;
 * - anything else counts something else: duckdb's `describe_table` sends a table's `rowCount`
 *   beside the `columns` that describe it.
 */
function countsTable(noun: string, table: string, at: Around, generic: boolean): boolean {
  if (noun === '') return generic && !at.throughArray;
  const name = normal(table);
  return noun === singular(name) || (ROW_NOUNS.has(noun) && ROW_ARRAYS.has(name));
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
  const seen = new Set<string>();
  let total: number | undefined;
  const all = around(document, pointer);
  // The table's name: its member's, or `rows` for a header-plus-arrays table's own object.
  const table =
    all[0]?.member === undefined && all[0] ? 'rows' : (parseJsonPointer(pointer).at(-1) ?? '');
  let generic = true;
  for (const at of all) {
    const { object, member } = at;
    if (member !== undefined) {
      generic &&= Object.entries(object).every(
        ([key, value]) => key === member || !isArrayOfObjects(value),
      );
    }
    for (const [key, value] of Object.entries(object)) {
      const name = normal(key);
      const noun = countNoun(name);
      const kind = TRUNCATED.has(name)
        ? 'truncated'
        : MORE.has(name)
          ? 'more'
          : CURSOR.has(name)
            ? 'cursor'
            : NOTE.has(name)
              ? 'note'
              : noun !== undefined
                ? 'total'
                : undefined;
      if (!kind || (kind !== 'note' && seen.has(kind))) continue;
      if ((kind === 'truncated' || kind === 'more') && value === true) partial.push([key, true]);
      else if (
        kind === 'total' &&
        Number.isSafeInteger(value) &&
        (value as number) > rows &&
        countsTable(noun as string, table, at, generic)
      ) {
        total = value as number;
        partial.push([key, value]);
      } else if (
        kind === 'cursor' &&
        (typeof value === 'number' || (typeof value === 'string' && value !== ''))
      ) {
        partial.push([key, typeof value === 'string' ? cut(value, MAX_CURSOR_CHARS) : value]);
      } else if (kind === 'note' && typeof value === 'string' && value.trim() !== '') {
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

/** The upstream's prose around its table (or in place of one), before and after it. */
export interface Words {
  /** Before the table, or all of it for an answer without one (`""`: none). */
  readonly before: string;
  /** After the table (`""`: none). */
  readonly after: string;
}

/**
 * The upstream's prose as the model reads it beside the S2SP result: quoted as JSON strings and
 * labelled as the upstream's, so that its words cannot pose as the proxy's.
 *
 * @param words - the prose before and after the table
 * @param table - `false` for an answer that held no table (its prose is all there is)
 */
export function upstreamWordsText(words: Words, table = true): string {
  if (!table) {
    return `Upstream says, in place of a table (its own words, not the proxy's): ${JSON.stringify(words.before)}.`;
  }
  const parts = [
    ...(words.before !== '' ? [`before it ${JSON.stringify(words.before)}`] : []),
    ...(words.after !== '' ? [`after it ${JSON.stringify(words.after)}`] : []),
  ];
  return `Upstream says, around the table (its own words, not the proxy's): ${parts.join('; ')}.`;
}
