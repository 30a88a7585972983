/**
 * A sync result's rows read back from its text: each row's stored length and its plain JSON, from
 * its two halves in the abstract and the body, so that the savings receipt counts a sync call's
 * plain result without serialising any row again.
 *
 * @module
 */

import { PROTOCOL } from '@s2sp/core';
import type { TextSpan } from './s2sp-result.js';
import type { Table } from './table.js';

const ROW_OPEN = `{"${PROTOCOL.rowId}":`;

/** A sync result's rows as the savings receipt reads them (`plainResultTokens`), from its text. */
export interface SyncRows {
  /** Row `i`'s stored JSON length (`serializeRow`'s layout). */
  readonly rowLengths: Uint32Array;
  /**
   * Row `i`'s plain JSON with its abstract columns first, then its body columns: the plain row's
   * members, reordered, so of its length, and of its tokens but where a member's neighbours change
   * (a punctuation run of more than four marks, such as `"]}],"`, is charged by its length). Two
   * slices of the text, not the row serialised again.
   */
  plainRow(i: number): string;
}

/**
 * A sync result's rows, read from its text, for a result of every row: row `i`'s halves in the
 * abstract and the body, each `{"_row_id":i` and then its members. Its stored JSON length is the
 * two halves' less one `{"_row_id":i` and the `}` or `,` that joins them. No row is serialised
 * again.
 *
 * The halves hold exactly the row's members (each column is in one of them, its value written as
 * the row writes it), except in a row with a `toJSON`: `JSON.stringify` writes what that returns.
 * The rows are told apart by `{"_row_id":`, each row's start: it cannot occur inside a JSON string
 * (its quote would end the string), only as a nested object's first key, so an array in which it
 * occurs more often than once a row is not read.
 *
 * @param table - the table, every row of which the result holds, in order (no filter)
 * @param text - the result's JSON, which the rows' plain JSON is sliced from; read in place, since
 *   a large JSON text is made in pieces that the first read joins (a copy that the answer's own
 *   serialisation would make otherwise)
 * @param abstract - where the abstract's JSON array is in `text`
 * @param body - where the body's
 * @returns the rows, or `undefined` when they cannot be read exactly so
 */
export function syncRows(
  table: Table,
  text: string,
  abstract: TextSpan,
  body: TextSpan,
): SyncRows | undefined {
  const count = table.rows.length;
  for (const row of table.rows)
    if (typeof (row as { toJSON?: unknown }).toJSON === 'function') return undefined;
  const abstractStarts = rowStartsIn(text, abstract, count);
  const bodyStarts = abstractStarts && rowStartsIn(text, body, count);
  if (!abstractStarts || !bodyStarts) return undefined;
  // Row `k` of an array runs from its start to the comma before the next one, or to the `]`.
  const length = (starts: Uint32Array, k: number) =>
    (starts[k + 1] as number) - 1 - (starts[k] as number);
  const rowLengths = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    // `{"_row_id":i` once, and one of the `}` ending the abstract half or the `,` after an id.
    const joint = ROW_OPEN.length + String(i).length + 1;
    rowLengths[i] = length(abstractStarts, i) + length(bodyStarts, i) - joint;
  }
  // Row `i`'s members in a half: what follows `{"_row_id":i,`, less the closing `}`.
  const members = (starts: Uint32Array, i: number) => {
    const start = (starts[i] as number) + ROW_OPEN.length + String(i).length + 1;
    const end = (starts[i] as number) + length(starts, i) - 1;
    return end > start ? text.slice(start, end) : '';
  };
  return {
    rowLengths,
    plainRow: (i) => {
      const first = members(abstractStarts, i);
      const second = members(bodyStarts, i);
      if (first === '' || second === '') return `{${first}${second}}`;
      return `{${first},${second}}`;
    },
  };
}

/**
 * Where each of the `count` rows of the compact JSON array at `span` in `text` starts, rows that
 * each start with `{"_row_id":`, and then the array's end (`span.end`, one past its `]`), or
 * `undefined` when that does not occur there exactly `count` times.
 */
function rowStartsIn(text: string, span: TextSpan, count: number): Uint32Array | undefined {
  const starts = new Uint32Array(count + 1);
  const within = (at: number) => at >= 0 && at < span.end;
  let at = text.indexOf(ROW_OPEN, span.start);
  for (let i = 0; i < count; i++) {
    if (!within(at)) return undefined;
    starts[i] = at;
    at = text.indexOf(ROW_OPEN, at + ROW_OPEN.length);
  }
  if (within(at)) return undefined;
  starts[count] = span.end;
  return starts;
}
