/**
 * A table from a text format's records (CSV, TSV, Markdown, HTML: a header, then rows of text
 * cells), built in two passes over the text so that its records are never all held: the first
 * checks the header and each record's length and finds the columns whose every cell is a number;
 * the second builds the rows. With `keep` (an async split, whose store takes the rows' JSON and
 * whose abstract reads only its own columns) it builds what the JSON path builds from a compact
 * array (see `rowsKeepingSteps`): rows holding only the kept values, whole in the rows the
 * catalogue samples, and every row's JSON written once into one buffer ({@link RowBytes}) that
 * the store encodes in place. A 20 MB CSV of short rows then costs a few times its size rather
 * than fifteen (an object, an array and a string per cell).
 *
 * @module
 */

import type { Row } from '@s2sp/core';
import { setColumn } from '@s2sp/core/json';
import { sampledRows } from '../column-catalogue.js';
import type { RowBytes } from '../s2sp-call.js';
import { headerNames, isNumberText } from './header-rows.js';
import { valueSharer } from './json-rows.js';
import type { Steps } from './parse-steps.js';

/** One run of a parser over the text, handing each record (the header first) to `record`. */
export type RecordPass = (
  record: (cells: string[]) => void,
) => Steps<{ readonly ok: true } | { readonly ok: false; readonly reason: string } | undefined>;

/** Options of {@link recordTableSteps}. */
export interface RecordTableOptions {
  /** The format's name in messages (`CSV`). */
  readonly label: string;
  /** The line (or row) number of the first record after the header, for messages. */
  readonly firstLine: number;
  readonly unit: string;
  /** Fewest columns the header must have (a format not named needs two). */
  readonly minColumns: number;
  /** The only columns whose values are needed (see the module comment). */
  readonly keep?: readonly string[];
}

/** What {@link recordTableSteps} builds: rows, and with `keep` every row's JSON as bytes. */
export interface RecordTable {
  readonly rows: Row[];
  readonly bytes?: RowBytes;
}

/** Bytes reserved per row beyond its cells: the store's `{"_row_id":n,` prefix and commas. */
const ROW_SLACK = 24;

/** Grows a resizable buffer of rows' JSON, so the store can encode them in place. */
function rowBytesWriter(estimate: number, rows: number) {
  const encoder = new TextEncoder();
  const starts = new Uint32Array(rows);
  const ends = new Uint32Array(rows);
  let max = Math.max(65_536, estimate);
  const make = (length: number) =>
    new (
      ArrayBuffer as unknown as new (
        length: number,
        options: { maxByteLength: number },
      ) => ArrayBuffer & { resize(length: number): void }
    )(length, { maxByteLength: max });
  let buffer = make(Math.min(max, 1 << 20));
  let view = new Uint8Array(buffer);
  let at = 0;
  let row = 0;
  const room = (needed: number) => {
    if (at + needed <= buffer.byteLength) return;
    const wanted = Math.max(at + needed, Math.min(max, buffer.byteLength * 2));
    if (wanted > max) {
      // Past the estimate (cells full of escapes): a larger reservation, copied once.
      max = Math.max(wanted, max * 2);
      const bigger = make(wanted);
      new Uint8Array(bigger).set(view.subarray(0, at));
      buffer = bigger;
    } else buffer.resize(wanted);
    view = new Uint8Array(buffer);
  };
  return {
    add(json: string): void {
      room(json.length * 3);
      starts[row] = at;
      at += encoder.encodeInto(json, view.subarray(at)).written;
      ends[row++] = at;
    },
    finish(): RowBytes {
      return { bytes: new Uint8Array(buffer, 0, at), starts, ends };
    },
  };
}

/**
 * Builds a table from the records a parser hands over, by the module comment; a reason when the
 * records do not make one, `undefined` when the text is not in the format.
 *
 * @param pass - runs the parser once; called twice (the parser pauses as it reads)
 * @param length - characters of the text, for the buffer's first reservation
 */
export function* recordTableSteps(
  pass: RecordPass,
  length: number,
  options: RecordTableOptions,
): Steps<RecordTable | { readonly reason: string } | undefined> {
  let noHeader = false;
  let names: string[] | undefined;
  let numeric: boolean[] = [];
  let count = 0;
  let bad: string | undefined;
  const first = yield* pass((cells) => {
    if (bad !== undefined || noHeader) return;
    if (names === undefined) {
      const named = headerNames(cells);
      if (!Array.isArray(named)) bad = named.reason;
      else if (named.length < options.minColumns) noHeader = true;
      else {
        names = named;
        numeric = named.map(() => true);
      }
      return;
    }
    if (cells.length !== names.length) {
      bad = `${options.unit} ${options.firstLine + count} has ${cells.length} cells, the header ${names.length}`;
      return;
    }
    // A column is numbers when every one of its cells is.
    for (let c = 0; c < cells.length; c++) {
      if (numeric[c] && !isNumberText(cells[c] as string)) numeric[c] = false;
    }
    count++;
  });
  if (!first) return undefined;
  if (!first.ok) return { reason: first.reason };
  if (noHeader) {
    return options.minColumns > 1 ? undefined : { reason: `as ${options.label}, it has no header` };
  }
  if (bad !== undefined) return { reason: `as ${options.label}, ${bad}` };
  if (names === undefined) return { reason: `as ${options.label}, it has no header` };
  const columns = names;
  if (count === 0) numeric = columns.map(() => false);
  const keys = columns.map((name) => JSON.stringify(name));
  const keep = options.keep && new Set(options.keep);
  const whole = keep && new Set(sampledRows(count));
  const writer =
    keep &&
    rowBytesWriter(
      Math.ceil(length * 1.25) + count * (ROW_SLACK + keys.reduce((n, k) => n + k.length + 3, 0)),
      count,
    );
  // Sized once from the first pass's count: an array grown row by row leaves each smaller copy
  // behind (megabytes for half a million rows, collected only with the old generation).
  const rows: Row[] = new Array(count);
  let i = 0;
  const share = valueSharer();
  // A row holding only the kept values starts as a copy of this one: JSON.parse sizes an object to
  // its members, and a copy keeps that size (40 bytes a row with two kept columns, against 56 for
  // an object grown from `{}`: 9 MB over 566k rows).
  const kept = keep && columns.filter((name) => keep.has(name));
  const template =
    kept && JSON.parse(`{${kept.map((name) => `${JSON.stringify(name)}:null`).join(',')}}`);
  let header = true;
  yield* pass((cells) => {
    if (header) {
      header = false;
      return;
    }
    const row: Row = template && i > 0 && !whole?.has(i) ? { ...template } : {};
    let json = '{';
    for (let c = 0; c < columns.length; c++) {
      const text = cells[c] as string;
      const name = columns[c] as string;
      if (writer)
        json += `${c > 0 ? ',' : ''}${keys[c]}:${numeric[c] ? text : JSON.stringify(text)}`;
      const value = numeric[c] ? Number(text) : text;
      // Without `keep` every value; with it the kept ones, the first row's others as null (so
      // the rows still give the columns), and the sampled rows whole.
      // Kept and sampled values are shared copies, not slices holding the whole text.
      if (!keep) setColumn(row, name, value);
      else if (keep.has(name) || whole?.has(i)) setColumn(row, name, share(value));
      else if (i === 0) setColumn(row, name, null);
    }
    writer?.add(`${json}}`);
    rows[i++] = row;
  });
  yield;
  return writer ? { rows, bytes: writer.finish() } : { rows };
}
