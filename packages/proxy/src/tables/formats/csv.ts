/**
 * Delimiter-separated text (CSV, RFC 4180; TSV with the same quoting): fields in double quotes
 * may hold the delimiter, line breaks and doubled quotes (`""`); records end at LF, CRLF or CR.
 * In TSV a quote inside an unquoted field is text (`5" screen`); in CSV it is an error.
 * One pass over the text, no regular expressions, so its time is linear in the input.
 *
 * A large text may be given as its UTF-8 bytes: it is then decoded a piece at a time, each piece
 * ending where a record does ({@link pieceEnd}), so the text is never held as one string (a 20 MB
 * string lives in the old generation until a full collection, beside everything built from it).
 *
 * @module
 */

import { Buffer } from 'node:buffer';
import { pacer, runNow, type Steps } from './parse-steps.js';

/** Records, or why the text is not delimiter-separated. */
export type DelimitedParse =
  | { readonly ok: true; readonly records: string[][] }
  | { readonly ok: false; readonly reason: string };

/** Limits of {@link parseDelimited}. */
export interface DelimitedLimits {
  /** Most fields in the whole text; more is refused (an upstream cannot make the proxy build millions of cells it was not asked for). */
  readonly maxFields: number;
}

const QUOTE = 34;
const LF = 10;
const CR = 13;
const TAB = 9;

/**
 * Splits `text` into records of fields. Blank lines are skipped; a final line break ends the last
 * record rather than starting an empty one.
 *
 * @param text - the whole text
 * @param delimiter - `,` for CSV, a tab for TSV
 */
export function parseDelimited(
  text: string,
  delimiter: ',' | '\t',
  limits: DelimitedLimits,
): DelimitedParse {
  return runNow(delimitedSteps(text, delimiter, limits));
}

/** Bytes of UTF-8 decoded at once when the text comes as bytes: a string the young generation holds. */
export const PIECE_BYTES = 32 * 1024;

/**
 * Where the piece of `bytes` that starts at `from` (a record's start) ends: after the first line
 * break at or past `from + PIECE_BYTES` that ends a record, the end of the bytes if none does. A
 * line break inside a quoted field ends no record; a quote opens a field only at its start, as
 * {@link delimitedSteps} reads it (in TSV a quote later in a field is text). Line breaks and
 * quotes are ASCII, never part of a multi-byte character, so a piece is whole UTF-8.
 */
export function pieceEnd(bytes: Uint8Array, from: number, sep: number): number {
  const n = bytes.length;
  const target = from + PIECE_BYTES;
  if (target >= n) return n;
  // The usual case: no quote before the first LF past the target.
  const lf = bytes.indexOf(LF, target);
  // (Searched up to the LF only: a search to the end, piece after piece, would be quadratic.)
  if (lf >= 0 && bytes.subarray(from, lf).indexOf(QUOTE) < 0) return lf + 1;
  let fieldStart = true;
  for (let k = from; k < n; k++) {
    const c = bytes[k] as number;
    if (c === QUOTE && fieldStart) {
      // A quoted field runs to the quote not followed by another.
      for (;;) {
        const q = bytes.indexOf(QUOTE, k + 1);
        if (q < 0) return n;
        k = q;
        if (bytes[q + 1] !== QUOTE) break;
        k++;
      }
      fieldStart = false;
      continue;
    }
    if (c === LF || c === CR) {
      fieldStart = true;
      if (k + 1 >= target && !(c === CR && bytes[k + 1] === LF)) return k + 1;
      continue;
    }
    fieldStart = c === sep;
  }
  return n;
}

/** The text in pieces that each end where a record does: a string is one piece. */
function* piecesOf(input: string | Uint8Array, sep: number): Generator<string, void, void> {
  if (typeof input === 'string') {
    yield input;
    return;
  }
  const buffer = Buffer.from(input.buffer, input.byteOffset, input.length);
  for (let from = 0; from < buffer.length; ) {
    const to = pieceEnd(buffer, from, sep);
    yield buffer.toString('utf8', from, to);
    from = to;
  }
}

/**
 * {@link parseDelimited}, pausing as it goes (see `parse-steps.ts`).
 *
 * @param input - the text, or its UTF-8 (whole characters), read a piece at a time
 * @param onRecord - takes each record as it is read, instead of the result's `records` (then
 *   empty): a large text is read without holding all its records
 */
export function* delimitedSteps(
  input: string | Uint8Array,
  delimiter: ',' | '\t',
  limits: DelimitedLimits,
  onRecord?: (record: string[]) => void,
): Steps<DelimitedParse> {
  const pace = pacer();
  const sep = delimiter.charCodeAt(0);
  const records: string[][] = [];
  let record: string[] = [];
  let fields = 0;
  let line = 1;
  // A record that has seen any character (a blank line is not a record).
  let started = false;
  const endRecord = () => {
    if (started) {
      if (onRecord) onRecord(record);
      else records.push(record);
    }
    record = [];
    started = false;
  };
  // Each piece but the last ends with a record's line break, so no record or field spans two.
  for (const text of piecesOf(input, sep)) {
    let paced = 0;
    let i = 0;
    const n = text.length;
    while (i < n) {
      if (pace.due(i - paced + 1)) yield;
      paced = i;
      const c = text.charCodeAt(i);
      if (c === LF || c === CR) {
        endRecord();
        i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
        line++;
        continue;
      }
      started = true;
      if (++fields > limits.maxFields) {
        return {
          ok: false,
          reason: `it has more than ${limits.maxFields.toLocaleString('en-US')} fields`,
        };
      }
      if (c === QUOTE) {
        // A quoted field: runs to the quote not followed by another quote.
        const startLine = line;
        // The field's pieces between doubled quotes, joined once (adding to a string per `""`
        // would build a chain as long as the field).
        const pieces: string[] = [];
        let from = i + 1;
        for (;;) {
          const q = text.indexOf('"', from);
          if (q < 0) {
            return {
              ok: false,
              reason: `line ${startLine} opens a quoted field that never closes`,
            };
          }
          for (let k = from; k < q; k++) {
            const d = text.charCodeAt(k);
            if (d === LF || (d === CR && text.charCodeAt(k + 1) !== LF)) line++;
          }
          pieces.push(text.slice(from, q));
          if (text.charCodeAt(q + 1) === QUOTE) {
            pieces.push('"');
            from = q + 2;
            // A field may be the whole text: it pauses too.
            if (pace.due(q + 2 - paced)) yield;
            paced = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        record.push(pieces.length === 1 ? (pieces[0] as string) : pieces.join(''));
        const next = text.charCodeAt(i);
        if (next === sep) {
          i++;
          if (i >= n || text.charCodeAt(i) === LF || text.charCodeAt(i) === CR) record.push('');
        } else if (!(i >= n || next === LF || next === CR)) {
          return { ok: false, reason: `line ${line} has text after the closing quote of a field` };
        }
        continue;
      }
      // An unquoted field: up to the delimiter or the end of the line.
      let j = i;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === sep || d === LF || d === CR) break;
        // CSV (RFC 4180) allows no quote here; TSV writers leave quotes in text as they are.
        if (d === QUOTE && sep !== TAB) {
          return { ok: false, reason: `line ${line} has a quote inside an unquoted field` };
        }
        j++;
        // A field may be the whole text: it pauses too.
        if ((j & 0xffff) === 0) yield;
      }
      record.push(text.slice(i, j));
      i = j;
      if (i < n && text.charCodeAt(i) === sep) {
        i++;
        // A delimiter at the end of a line or of the text ends with an empty field.
        if (i >= n || text.charCodeAt(i) === LF || text.charCodeAt(i) === CR) record.push('');
      }
    }
  }
  endRecord();
  return { ok: true, records };
}
