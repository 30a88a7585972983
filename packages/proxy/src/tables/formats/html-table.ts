/**
 * The first `<table>` of an HTML text, read by a small linear scanner (no regular expressions
 * over the input, so no catastrophic backtracking; every loop advances): rows are `<tr>`, cells
 * `<th>`/`<td>`, tags inside a cell are dropped and their text kept, entities are decoded and
 * white space collapsed. A cell spanning several columns or rows, or a table inside a cell, is
 * refused rather than guessed at.
 *
 * @module
 */

import { pacer, runNow, type Steps } from './parse-steps.js';

/** The table's cells (the first row is the header), or why it cannot be read. */
export type HtmlTableParse =
  | { readonly ok: true; readonly header: string[]; readonly records: string[][] }
  | { readonly ok: false; readonly reason: string };

/** Caps of {@link findHtmlTable}. */
export interface HtmlTableLimits {
  /** Most cells in the table. */
  readonly maxCells: number;
  /** Most characters in one cell. */
  readonly maxCellChars: number;
}

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/** Longest entity name read (`#x10FFFF` is 8), and so how far a semicolon is looked for. */
const MAX_ENTITY = 9;

/** The entity `name` (between `&` and `;`) stands for, if it is one the proxy decodes. */
function entity(name: string): string | undefined {
  const hex = name.startsWith('#x') || name.startsWith('#X');
  if (hex || name.startsWith('#')) {
    const code = Number.parseInt(name.slice(hex ? 2 : 1), hex ? 16 : 10);
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff
      ? String.fromCodePoint(code)
      : undefined;
  }
  return Object.hasOwn(NAMED, name) ? NAMED[name] : undefined;
}

/**
 * Decodes the common entities; an unknown one stays as written. Linear: an entity ends at a
 * semicolon within {@link MAX_ENTITY} characters of its `&`, and the next semicolon is found once
 * and kept until an `&` passes it (a search to the end of the text for each `&` made a cell of a
 * million `&` take seconds).
 */
export function decodeEntities(text: string): string {
  let amp = text.indexOf('&');
  if (amp < 0) return text;
  const parts: string[] = [];
  let copied = 0;
  // The first semicolon after the last `&` looked at (-1: none is left in the text).
  let semi = text.indexOf(';', amp + 1);
  while (amp >= 0) {
    if (semi >= 0 && semi <= amp) semi = text.indexOf(';', amp + 1);
    const decoded =
      semi >= 0 && semi - amp <= MAX_ENTITY + 1 ? entity(text.slice(amp + 1, semi)) : undefined;
    if (decoded === undefined) {
      amp = text.indexOf('&', amp + 1);
      continue;
    }
    parts.push(text.slice(copied, amp), decoded);
    copied = semi + 1;
    amp = text.indexOf('&', copied);
  }
  parts.push(text.slice(copied));
  return parts.join('');
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12;

interface Tag {
  /** Lower-case name, without a leading `/`. */
  readonly name: string;
  readonly closing: boolean;
  /** Raw attribute text. */
  readonly attributes: string;
  /** Index just after the tag's `>`. */
  readonly end: number;
}

/** Reads the tag at `start` (`text[start] === '<'`); quotes in attributes may hold `>`. */
function readTag(text: string, start: number): Tag | undefined {
  let i = start + 1;
  const closing = text[i] === '/';
  if (closing) i++;
  const nameStart = i;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (isSpace(c) || c === 62 /* > */ || c === 47 /* / */) break;
    i++;
  }
  const name = text.slice(nameStart, i).toLowerCase();
  const attrStart = i;
  let quote = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 34 || c === 39) {
      quote = c;
    } else if (c === 62) {
      return { name, closing, attributes: text.slice(attrStart, i), end: i + 1 };
    }
    i++;
  }
  return undefined;
}

/** The value of `attribute` in raw attribute text, lower-cased names, no regular expression. */
function attributeValue(attributes: string, attribute: string): string | undefined {
  const lower = attributes.toLowerCase();
  let from = 0;
  for (;;) {
    const at = lower.indexOf(attribute, from);
    if (at < 0) return undefined;
    from = at + attribute.length;
    const before = at === 0 ? 32 : lower.charCodeAt(at - 1);
    if (!isSpace(before)) continue;
    let i = from;
    while (isSpace(lower.charCodeAt(i))) i++;
    if (lower[i] !== '=') continue;
    i++;
    while (isSpace(lower.charCodeAt(i))) i++;
    const q = lower[i];
    if (q === '"' || q === "'") {
      const close = lower.indexOf(q, i + 1);
      return close < 0 ? undefined : attributes.slice(i + 1, close);
    }
    let j = i;
    while (j < lower.length && !isSpace(lower.charCodeAt(j))) j++;
    return attributes.slice(i, j);
  }
}

/** White space runs collapsed to one space, none at the ends: whole runs sliced, not characters added. */
function collapse(text: string): string {
  const words: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && !isSpace(text.charCodeAt(i))) i++;
    words.push(text.slice(start, i));
  }
  return words.length === 1 ? (words[0] as string) : words.join(' ');
}

/** Where `</name` (any case) starts at or after `from`, or the end of the text. */
function closingTagAt(text: string, name: string, from: number): number {
  let i = from;
  for (;;) {
    const at = text.indexOf('</', i);
    if (at < 0) return text.length;
    if (text.slice(at + 2, at + 2 + name.length).toLowerCase() === name) return at;
    i = at + 2;
  }
}

/** Finds the start of `<table` (any case) at or after `from`. */
function findTableStart(text: string, from: number): number {
  let i = from;
  for (;;) {
    const lt = text.indexOf('<', i);
    if (lt < 0) return -1;
    if (text.slice(lt + 1, lt + 6).toLowerCase() === 'table') {
      const after = text.charCodeAt(lt + 6);
      if (isSpace(after) || after === 62 || after === 47) return lt;
    }
    i = lt + 1;
  }
}

/**
 * Reads the first `<table>` in `text`.
 *
 * @returns its header (first row) and rows; a reason when it cannot be read; `undefined` when
 *   `text` has no `<table>`
 */
export function findHtmlTable(text: string, limits: HtmlTableLimits): HtmlTableParse | undefined {
  return runNow(htmlTableSteps(text, limits));
}

/**
 * {@link findHtmlTable}, pausing as it goes (see `parse-steps.ts`).
 *
 * @param onRecord - takes each row (the header first) as it is read, instead of the result's
 *   `header` and `records` (then empty)
 */
export function* htmlTableSteps(
  text: string,
  limits: HtmlTableLimits,
  onRecord?: (record: string[]) => void,
): Steps<HtmlTableParse | undefined> {
  const start = findTableStart(text, 0);
  if (start < 0) return undefined;
  const rows: string[][] = [];
  // Rows read, handed to onRecord or kept.
  let read = 0;
  let row: string[] | undefined;
  let cell: string | undefined;
  let cells = 0;
  let i = start;
  let depth = 0;
  const endCell = () => {
    if (cell !== undefined && row) row.push(collapse(decodeEntities(cell)));
    cell = undefined;
  };
  const endRow = () => {
    endCell();
    if (row && row.length > 0) {
      if (onRecord) onRecord(row);
      else rows.push(row);
      read++;
    }
    row = undefined;
  };
  const pace = pacer();
  let paced = i;
  while (i < text.length) {
    if (pace.due(i - paced + 1)) yield;
    paced = i;
    const lt = text.indexOf('<', i);
    const textEnd = lt < 0 ? text.length : lt;
    if (cell !== undefined && textEnd > i) {
      cell += text.slice(i, textEnd);
      if (cell.length > limits.maxCellChars) {
        return {
          ok: false,
          reason: `a cell of the HTML table has more than ${limits.maxCellChars.toLocaleString('en-US')} characters`,
        };
      }
    }
    if (lt < 0) break;
    if (text.startsWith('<!--', lt)) {
      const close = text.indexOf('-->', lt + 4);
      i = close < 0 ? text.length : close + 3;
      continue;
    }
    const tag = readTag(text, lt);
    if (!tag) break;
    i = tag.end;
    switch (tag.name) {
      case 'table':
        if (tag.closing) {
          depth--;
          if (depth === 0) {
            endRow();
            if (onRecord) return read > 0 ? { ok: true, header: [], records: [] } : rowsToTable([]);
            return rowsToTable(rows);
          }
        } else {
          depth++;
          if (depth > 1) return { ok: false, reason: 'the HTML table has a table inside a cell' };
        }
        break;
      case 'tr':
        endRow();
        if (!tag.closing) row = [];
        break;
      case 'td':
      case 'th':
        endCell();
        if (!tag.closing) {
          for (const span of ['colspan', 'rowspan']) {
            const value = attributeValue(tag.attributes, span);
            if (value !== undefined && value.trim() !== '1') {
              return {
                ok: false,
                reason: `a cell of the HTML table has ${span}="${value.slice(0, 8)}", which the proxy does not unfold`,
              };
            }
          }
          if (++cells > limits.maxCells) {
            return {
              ok: false,
              reason: `the HTML table has more than ${limits.maxCells.toLocaleString('en-US')} cells`,
            };
          }
          row ??= [];
          cell = '';
        }
        break;
      case 'br':
        if (cell !== undefined) cell += ' ';
        break;
      case 'script':
      case 'style': {
        if (tag.closing) break;
        i = closingTagAt(text, tag.name, i);
        break;
      }
      default:
        // Formatting inside a cell (<b>, <a>, <span>): its text is kept, the tag dropped.
        break;
    }
  }
  return { ok: false, reason: 'the HTML table is never closed with </table>' };
}

function rowsToTable(rows: string[][]): HtmlTableParse {
  const [header, ...records] = rows;
  if (!header) return { ok: false, reason: 'the HTML table has no rows' };
  return { ok: true, header, records };
}
