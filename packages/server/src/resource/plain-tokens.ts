/**
 * What the plain result would have cost the model, in estimated tokens (the savings receipt's
 * baseline, PROTOCOL §7.9): a table's plain JSON from its stored rows, its sync text or its row
 * objects, and a relayed answer's own texts; exact within a bound, else from a spread sample.
 *
 * @module
 */

import { stringifyJson } from './stringify-json.js';
import type { SerializedTable, Table } from './table.js';
import { estimateTokens } from './token-estimate.js';

/**
 * Characters of plain JSON up to which the receipt counts the plain result exactly, and the most
 * it reads of a larger one: a spread sample of whole rows ({@link receiptSampleStride}), or of a
 * text's slices, scaled to the whole by length. The receipt so costs a bounded estimate, not a
 * second pass of the estimator over a table of any size.
 * Against the exact estimate (`savings-receipt.test.ts`): within 1% on the bench's generated
 * tables of 200 to 10,000 rows, sorted by length either way, and on short rows then long ones;
 * within 2% on NWS alerts (1.8 to 7.7 KB each, 2.1 to 3.5 characters a token) repeated past the
 * bound. A quarter of this bound held 14 alerts and was 3% off by length, 9% by row count.
 */
export const RECEIPT_SAMPLE_CHARS = 1 << 17;

/**
 * How many slices a text over {@link RECEIPT_SAMPLE_CHARS} is read in. Fewer, longer slices
 * misweigh a text whose kind changes along it (16 slices: 1.7% low on short CSV lines then long
 * ones); each cut may split a word, about a token more a cut. 64 slices (2 KiB each at the
 * bound): within 1% on CSV, JSON and the two mixed, in `savings-receipt.test.ts`.
 */
const TEXT_SLICES = 64;

// `{"_row_id":` minus its `{`, which the plain row keeps.
const ROW_ID_MEMBER = '"_row_id":'.length;

/**
 * The length of row `i`'s plain JSON, from the length of its stored JSON (`serializeRow`'s
 * layout).
 */
function plainRowLength(stored: number, i: number): number {
  const id = String(i).length;
  // `{"_row_id":7}` was `{}`; otherwise `{"_row_id":7,` stands for `{`.
  return stored === ROW_ID_MEMBER + id + 2 ? 2 : stored - ROW_ID_MEMBER - id - 1;
}

/**
 * The stride of the receipt's sample of a table of `count` rows: the smallest power of two for
 * which every `stride`-th row from row 0 makes plain JSON (`[`, the rows, their commas and `]`)
 * within {@link RECEIPT_SAMPLE_CHARS}. That is 1, every row, for a table within it; a larger table
 * is sampled at this stride over its whole length, so that a table sorted by size or by kind is
 * not read from one end ({@link sampled} takes the rows from the middle of each stride).
 *
 * Found in one walk that doubles the stride whenever the rows so far pass the bound.
 *
 * @param length - row `i`'s plain JSON length; called once for each row the walk visits
 */
export function receiptSampleStride(count: number, length: (i: number) => number): number {
  const lengths: number[] = [];
  let stride = 1;
  let chars = 1;
  for (let i = 0; i < count; i += stride) {
    lengths[i] = length(i);
    chars += (lengths[i] as number) + 1;
    while (chars > RECEIPT_SAMPLE_CHARS && stride < count) {
      // Keep the multiples of the doubled stride and go on from the last of them.
      stride *= 2;
      chars = 1;
      for (let j = 0; j <= i; j += stride) chars += (lengths[j] as number) + 1;
      i -= i % stride;
    }
  }
  return stride;
}

/** `tokens` of a sample of `sampled` units (characters, bytes) scaled to `total`. */
function scaled(tokens: number, sampled: number, total: number): number {
  return sampled === total ? tokens : Math.round((tokens * total) / sampled);
}

/**
 * What {@link plainResultTokens} can read a table's plain JSON from besides its row objects: each
 * row's stored JSON length (`serializeRow`'s layout), and the stored rows, or each row's plain JSON
 * (`syncRows`' `plainRow`).
 */
export type PlainRowSource = Pick<SerializedTable, 'rowLengths'> &
  Partial<Pick<SerializedTable, 'rows'>> & { readonly plainRow?: (i: number) => string };

/**
 * `estimateTokens` of the plain result (every row, every column): exact up to
 * {@link RECEIPT_SAMPLE_CHARS} of JSON, else from every k-th row ({@link receiptSampleStride}),
 * scaled by the table's plain length.
 *
 * @param stored - each row's stored JSON length ({@link serializeTable}'s, or `syncRows`'),
 *   when at hand: they give the plain length without serialising the table again, and only the
 *   sampled rows are read: from the stored rows or the sync text when given, else serialised
 *   here. Without it every row is serialised here, once, for the table's length.
 * @throws S2SPError `invalid_rows` when a row that is serialised here cannot be
 */
export function plainResultTokens(table: Table, stored?: PlainRowSource): number {
  const count = table.rows.length;
  if (!stored) {
    // Its estimate still reads only the sample; scaled by row count instead, a sample of a few
    // dozen rows that differ widely would be off by up to 9% (NWS alerts).
    const texts: string[] = new Array(count);
    let total = Math.max(2, count + 1);
    for (let i = 0; i < count; i++) {
      // A row whose `toJSON` returns nothing is `null` in the array, as `JSON.stringify` writes it.
      const text =
        (stringifyJson(table.rows[i], `Row ${i} of the tool result`) as string | undefined) ??
        'null';
      texts[i] = text;
      total += text.length;
    }
    const stride = receiptSampleStride(count, (i) => (texts[i] as string).length);
    return sampleTokens(`[${sampled(count, stride, (i) => texts[i] as string).join(',')}]`, total);
  }
  let total = Math.max(2, count + 1);
  for (let i = 0; i < count; i++) total += plainRowLength(stored.rowLengths[i] as number, i);
  const stride = receiptSampleStride(count, (i) =>
    plainRowLength(stored.rowLengths[i] as number, i),
  );
  const rows = stored.rows;
  // The plain JSON of the sampled rows from their stored JSON rather than the row objects: a
  // caller that stores rows from their texts (the proxy) may hold them without their other
  // values. For rows serialised here it is the same text.
  const plainRow =
    stored.plainRow ??
    (rows &&
      ((i: number) => {
        const row = rows[i] as string;
        const length = plainRowLength(row.length, i);
        return length === 2 ? '{}' : `{${row.slice(row.length - length + 1)}`;
      }));
  if (!plainRow) {
    // The sampled rows as one array, serialised in one call: its JSON is theirs joined by commas
    // in brackets. A call a row cost about as much again as the serialising, on rows of 1 KB.
    const sample = sampled(count, stride, (i) => table.rows[i]);
    return sampleTokens(stringifyJson(sample, 'A row of the tool result'), total);
  }
  return sampleTokens(`[${sampled(count, stride, plainRow).join(',')}]`, total);
}

/**
 * Every `stride`-th row of `count`, from the middle of the first stride (`stride / 2`,
 * `stride * 3 / 2`, …): from row 0 a sample of a table sorted by length would hold the shortest
 * row of every stride (measured on NWS alerts and generated rows sorted by length, mixed: 8.6%
 * high against 1.6% low from the middle).
 */
function sampled<T>(count: number, stride: number, row: (i: number) => T): T[] {
  const rows: T[] = [];
  for (let i = stride >> 1; i < count; i += stride) rows.push(row(i));
  return rows;
}

/** The estimate of a sample's plain JSON (`[`, its rows, their commas, `]`), scaled to `total`. */
function sampleTokens(sample: string, total: number): number {
  // A sample over the bound (one long row, or middle rows longer than the rows the stride was
  // chosen by) is read as a text is: no more than the bound of it.
  const tokens = textTokens(sample);
  return scaled(tokens, sample.length, total);
}

/**
 * `estimateTokens` of the texts a model reads of a plain tool result (its text blocks, as strings
 * or as their UTF-8): exact up to {@link RECEIPT_SAMPLE_CHARS} of each text, else from
 * {@link TEXT_SLICES} slices spread evenly over it, scaled by its length. A caller that relays
 * another server's answer (the proxy) counts the plain result this way, as the model would have
 * read it (CSV, indented JSON, prose), not as the rows' compact JSON.
 *
 * A text is read in spread slices rather than rows, since it has none to cut it at (CSV, prose and
 * indented JSON break differently), and rather than its first part, which misreads a text whose
 * kind changes along it (a sorted CSV, metadata before the rows, short lines then long ones), as
 * a first-rows sample misreads a sorted table.
 */
export function plainTextTokens(texts: Iterable<string | Uint8Array>): number {
  let tokens = 0;
  for (const text of texts) tokens += textTokens(text);
  return tokens;
}

/** {@link plainTextTokens} of one text. */
function textTokens(text: string | Uint8Array): number {
  const size = typeof text === 'string' ? text.length : text.byteLength;
  if (size <= RECEIPT_SAMPLE_CHARS) {
    return estimateTokens(typeof text === 'string' ? text : decoder.decode(text));
  }
  const width = RECEIPT_SAMPLE_CHARS / TEXT_SLICES;
  let tokens = 0;
  let sampled = 0;
  for (let slice = 0; slice < TEXT_SLICES; slice++) {
    // Each slice is the middle of its share of the text, as a row is of its stride (the text's
    // ends are no likelier than its middle to be like the rest); none splits a character (a
    // UTF-16 surrogate pair, a UTF-8 sequence).
    let start = Math.floor(((slice + 0.5) * size) / TEXT_SLICES - width / 2);
    let end = start + width;
    if (typeof text === 'string') {
      if (isLowSurrogate(text.charCodeAt(start))) start++;
      if (end < size && isLowSurrogate(text.charCodeAt(end))) end--;
      tokens += estimateTokens(text.slice(start, end));
    } else {
      while (start < end && isContinuation(text[start] as number)) start++;
      while (end > start && end < size && isContinuation(text[end] as number)) end--;
      tokens += estimateTokens(decoder.decode(text.subarray(start, end)));
    }
    sampled += end - start;
  }
  return scaled(tokens, sampled, size);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Whether a UTF-8 byte continues a character rather than starting one. */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

const decoder = new TextDecoder();
