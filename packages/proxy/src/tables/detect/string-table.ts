/**
 * A table in a text format held by a JSON string member (`{"csv": "id,name\n1,a\n", "row_count":
 * 1}`): named by a pointer (`--table-tool NAME:/csv:csv`, the format optional), or found when a
 * document holds no array of objects and exactly one of its strings reads as a table.
 *
 * @module
 */

import { isPlainObject } from '@s2sp/core/json';
import type { Steps } from '../formats/parse-steps.js';
import { pointerTo, resolveJsonPointer } from '../json-pointer.js';
import { MAX_DEPTH } from './json-document.js';
import { TEXT_FORMATS, type TextFormat, type TextTable, textSteps } from './text-formats.js';

/** A table read from a string member. */
export interface StringTable extends TextTable {
  /** Where the string is, as a JSON Pointer. */
  readonly pointer: string;
  readonly format: TextFormat;
}

/** What looking for a string table gives: one, why none can be read, or none. */
export type StringRead = StringTable | { readonly reason: string } | undefined;

/** Members looked at while searching one document for strings. */
const MAX_VISITED = 10_000;

/** A string that may hold a table: more than one line, or an HTML table. */
const mayHoldTable = (text: string) => /[\r\n]/.test(text.trim()) || text.includes('<table');

/** The table of one string, in `format` or in the first text format that reads it. */
function* readString(
  text: string,
  format: TextFormat | undefined,
  keep: readonly string[] | undefined,
): Steps<StringRead> {
  for (const each of format === undefined ? TEXT_FORMATS : [format]) {
    const read = yield* textSteps(text, each, format !== undefined, keep);
    if (read && 'reason' in read) return read;
    if (read) return { ...read, pointer: '', format: each };
  }
  return undefined;
}

/**
 * The table in the string at `tokens`, when that member is a string; `undefined` when it is not
 * (another rule applies).
 */
export function* namedStringTable(
  document: unknown,
  tokens: readonly string[],
  format: TextFormat | undefined,
  keep?: readonly string[],
): Steps<StringRead> {
  const value = resolveJsonPointer(document, tokens);
  if (typeof value !== 'string') return undefined;
  const pointer = tokens.map(pointerTo).join('');
  const read = yield* readString(value, format, keep);
  if (read && 'reason' in read) {
    return { reason: `the string at ${JSON.stringify(pointer.slice(0, 64))}: ${read.reason}` };
  }
  if (!read)
    return { reason: `the string at ${JSON.stringify(pointer.slice(0, 64))} holds no table` };
  return { ...read, pointer };
}

/**
 * The one string member of `document` that reads as a table, up to `MAX_DEPTH` levels of objects
 * down; a reason when several do (the operator names one: `--table-tool NAME:POINTER`).
 */
export function* foundStringTable(document: unknown, keep?: readonly string[]): Steps<StringRead> {
  const found: StringTable[] = [];
  let visited = 0;
  let level: [string, unknown][] = [['', document]];
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
    const next: [string, unknown][] = [];
    for (const [pointer, value] of level) {
      if (typeof value === 'string' && mayHoldTable(value)) {
        const read = yield* readString(value, undefined, keep);
        if (read && 'rows' in read && read.rows.length > 0) found.push({ ...read, pointer });
        continue;
      }
      if (!isPlainObject(value)) continue;
      for (const key of Object.keys(value)) {
        if (++visited > MAX_VISITED) break;
        next.push([pointer + pointerTo(key), value[key]]);
      }
    }
    level = next;
  }
  const [only] = found;
  if (found.length === 1 && only) return only;
  if (found.length === 0) return undefined;
  const listed = found
    .slice(0, 10)
    .map((each) => `${JSON.stringify(each.pointer.slice(0, 64))} (${each.format})`)
    .join(', ');
  return {
    reason: `${found.length} of its string members hold tables: ${listed}; the operator names one with --table-tool NAME:POINTER`,
  };
}
