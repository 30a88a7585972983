/**
 * Searching one JSON document for the table, by step 1 of the rule in `find-table.ts`: the arrays
 * of objects and header-plus-arrays objects in it, found breadth first, and the one that is the
 * table.
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';
import { headerRowsSteps } from '../formats/header-rows.js';
import type { Steps } from '../formats/parse-steps.js';
import { parseJsonPointer, pointerTo, resolveJsonPointer } from '../json-pointer.js';
import type { FindTableOptions } from './find-options.js';

/** An array of objects found in a result, by where it is and how many rows it has. */
export interface TableArray {
  /** JSON Pointer into the document (`""`: the document itself). */
  readonly pointer: string;
  readonly rows: number;
}

/** An array of the table's document that is not the table, kept beside it. */
export interface OtherArray {
  readonly pointer: string;
  readonly rows: readonly Row[];
}

/** Levels of objects searched for the table below the document. */
export const MAX_DEPTH = 4;
/** Members looked at while searching one document, so a huge object cannot make the walk slow. */
const MAX_VISITED = 10_000;

const HEADER_KEYS = ['columns', 'fields', 'headers', 'header'];
const RECORD_KEYS = ['rows', 'data', 'values', 'records'];

function isTable(value: unknown): value is Row[] {
  return Array.isArray(value) && value.every(isPlainObject);
}

type Located =
  | { readonly kind: 'rows'; readonly rows: Row[] }
  | { readonly kind: 'bad'; readonly reason: string };

/** A `{"columns": [...], "rows": [[...]]}` object, as rows of objects; `undefined`: not one. */
function* headerTable(value: unknown): Steps<Located | undefined> {
  if (!isPlainObject(value)) return undefined;
  const headerKey = HEADER_KEYS.find((key) => Array.isArray(value[key]));
  const recordKey = RECORD_KEYS.find(
    (key) =>
      Array.isArray(value[key]) &&
      (value[key] as unknown[]).length > 0 &&
      (value[key] as unknown[]).every(Array.isArray),
  );
  if (!headerKey || !recordKey) return undefined;
  // Columns as names, or as objects with a name (`{"name": "id", "type": "int4"}`).
  const header = (value[headerKey] as unknown[]).map((column) =>
    isPlainObject(column) && typeof column.name === 'string' ? column.name : column,
  );
  const built = yield* headerRowsSteps(header, value[recordKey] as unknown[][], {
    typeNumbers: false,
    firstLine: 0,
    unit: 'row',
  });
  return built.ok ? { kind: 'rows', rows: built.rows } : { kind: 'bad', reason: built.reason };
}

function* asTable(value: unknown): Steps<Located | undefined> {
  if (isTable(value)) return { kind: 'rows', rows: value };
  return yield* headerTable(value);
}

/**
 * The member of a one-row array that is the table, when its one object holds exactly one array
 * of objects, under a records name (`rows`, `data`, `values`, `records`): a wrapper such as
 * dbhub's `{"statements": [{"sql": …, "rows": [...], "count": 2}]}` (one statement, its rows).
 * The name keeps a real one-row table whose row holds a list of objects (`"tags": [{…}]`) a
 * table of one row.
 */
function onlyInnerTable(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length !== 1 || !isPlainObject(value[0])) return undefined;
  const row = value[0];
  const arrays = Object.keys(row).filter((key) => isTable(row[key]));
  const [key] = arrays;
  return arrays.length === 1 && key !== undefined && RECORD_KEYS.includes(key) ? key : undefined;
}

interface Candidate {
  readonly pointer: string;
  readonly located: Located;
}

/**
 * Walks the values of `document` breadth first, up to `MAX_DEPTH` levels of objects down and
 * `MAX_VISITED` members: `visit` sees each with its pointer and says whether it took the value
 * (its members are then not walked).
 */
export function* walkDocument(
  document: unknown,
  visit: (pointer: string, value: unknown) => Steps<boolean>,
): Steps<void> {
  let visited = 0;
  let level: [string, unknown][] = [['', document]];
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
    const next: [string, unknown][] = [];
    for (const [pointer, value] of level) {
      if ((yield* visit(pointer, value)) || !isPlainObject(value)) continue;
      for (const key of Object.keys(value)) {
        if (++visited > MAX_VISITED) return;
        next.push([pointer + pointerTo(key), value[key]]);
      }
    }
    level = next;
  }
}

/** Every array of objects (and header-plus-arrays object) in `document`, breadth first. */
function* candidates(document: unknown): Steps<Candidate[]> {
  const out: Candidate[] = [];
  yield* walkDocument(document, function* (pointer, value) {
    const located = yield* asTable(value);
    const inner = located && onlyInnerTable(value);
    if (inner !== undefined) {
      const rows = (value as Row[])[0]?.[inner] as Row[];
      out.push({ pointer: `${pointer}/0${pointerTo(inner)}`, located: { kind: 'rows', rows } });
    } else if (located) out.push({ pointer, located });
    return located !== undefined;
  });
  return out;
}

const rowCount = (c: Candidate) => (c.located.kind === 'rows' ? c.located.rows.length : 0);

/** What one JSON document holds: its table, why it has none that can be split, or no table. */
export type InDocument =
  | {
      readonly kind: 'table';
      readonly rows: Row[];
      readonly pointer: string;
      readonly arrays: TableArray[];
      readonly others: OtherArray[];
    }
  | { readonly kind: 'not-table'; readonly reason: string; readonly arrays?: TableArray[] }
  | { readonly kind: 'none' };

function listArrays(arrays: readonly TableArray[]): string {
  const shown = arrays
    .slice(0, 10)
    .map(
      (a) => `${JSON.stringify(a.pointer.slice(0, 64))} (${a.rows.toLocaleString('en-US')} rows)`,
    );
  const more =
    arrays.length > 10 ? ` … and ${(arrays.length - 10).toLocaleString('en-US')} more` : '';
  return shown.join(', ') + more;
}

/**
 * The table of one JSON document, by the rule in `find-table.ts`, pausing as it goes (see
 * `parse-steps.ts`).
 */
export function* documentSteps(document: unknown, options: FindTableOptions): Steps<InDocument> {
  const found = yield* candidates(document);
  const nonEmpty = found.filter((c) => rowCount(c) > 0 || c.located.kind === 'bad');
  const arrays: TableArray[] = nonEmpty.map((c) => ({ pointer: c.pointer, rows: rowCount(c) }));
  function* pick(chosen: Candidate | undefined, pointer: string): Steps<InDocument> {
    if (!chosen) {
      const value = resolveJsonPointer(document, parseJsonPointer(pointer));
      const located = yield* asTable(value);
      if (!located) {
        return {
          kind: 'not-table',
          reason: `${JSON.stringify(pointer.slice(0, 64))} does not hold an array of objects`,
          ...(arrays.length > 0 && { arrays }),
        };
      }
      chosen = { pointer, located };
    }
    if (chosen.located.kind === 'bad') {
      return {
        kind: 'not-table',
        reason: `the array at ${JSON.stringify(chosen.pointer)}: ${chosen.located.reason}`,
      };
    }
    const others = nonEmpty
      .filter((c) => c.pointer !== chosen.pointer && c.located.kind === 'rows')
      // An array inside the chosen table's own rows cannot be found (the walk stops at tables),
      // but the table may sit inside another member's object: only disjoint arrays are others.
      .map((c) => ({ pointer: c.pointer, rows: (c.located as { rows: Row[] }).rows }));
    return { kind: 'table', rows: chosen.located.rows, pointer: chosen.pointer, arrays, others };
  }

  if (options.table !== undefined) {
    const name = options.table;
    if (name.startsWith('/') || name === '') {
      return yield* pick(
        found.find((c) => c.pointer === name),
        name,
      );
    }
    const matches = found.filter((c) => c.pointer.split('/').at(-1) === pointerTo(name).slice(1));
    if (matches.length === 1) return yield* pick(matches[0], matches[0]?.pointer ?? '');
    return {
      kind: 'not-table',
      reason:
        matches.length === 0
          ? `the result has no array named ${JSON.stringify(name.slice(0, 64))}`
          : `${matches.length} arrays are named ${JSON.stringify(name.slice(0, 64))}`,
      ...(arrays.length > 0 && { arrays }),
    };
  }
  if (options.pointer) {
    const pointer = options.pointer.map(pointerTo).join('');
    return yield* pick(
      found.find((c) => c.pointer === pointer),
      pointer,
    );
  }
  const whole = found.find((c) => c.pointer === '');
  if (whole) return yield* pick(whole, '');
  const [only] = nonEmpty;
  if (nonEmpty.length === 1 && only) return yield* pick(only, only.pointer);
  if (nonEmpty.length > 1) {
    return {
      kind: 'not-table',
      reason: `the result has ${nonEmpty.length} arrays of objects: ${listArrays(arrays)}`,
      arrays,
    };
  }
  // Zero rows inside a wrapper (`{"data": [], "total": 0}`): an empty table.
  const [empty] = found;
  if (empty) return yield* pick(empty, empty.pointer);
  return { kind: 'none' };
}
