/**
 * The first `<table>` of an HTML text, read by a small linear scanner (no regular expressions
 * over the input, so no catastrophic backtracking; every loop advances): rows are `<tr>`, cells
 * `<th>`/`<td>`, tags inside a cell are dropped and their text kept, entities are decoded and
 * white space collapsed. A cell spanning several columns or rows, or a table inside a cell, is
 * refused rather than guessed at.
 *
 * @module
 */

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

/** Decodes the common entities; an unknown one stays as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const amp = text.indexOf('&', i);
    if (amp < 0) break;
    out += text.slice(i, amp);
    const semi = text.indexOf(';', amp);
    // Entities are short: a far semicolon belongs to something else.
    const name = semi > amp && semi - amp <= 10 ? text.slice(amp + 1, semi) : '';
    let decoded: string | undefined;
    if (name.startsWith('#x') || name.startsWith('#X')) {
      const code = Number.parseInt(name.slice(2), 16);
      if (Number.isInteger(code) && code > 0 && code <= 0x10ffff)
        decoded = String.fromCodePoint(code);
    } else if (name.startsWith('#')) {
      const code = Number.parseInt(name.slice(1), 10);
      if (Number.isInteger(code) && code > 0 && code <= 0x10ffff)
        decoded = String.fromCodePoint(code);
    } else if (Object.hasOwn(NAMED, name)) {
      decoded = NAMED[name];
    }
    if (decoded === undefined) {
      out += '&';
      i = amp + 1;
    } else {
      out += decoded;
      i = semi + 1;
    }
  }
  return out + text.slice(i);
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

function collapse(text: string): string {
  let out = '';
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      space = out.length > 0;
    } else {
      if (space) out += ' ';
      space = false;
      out += text[i];
    }
  }
  return out;
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
  const start = findTableStart(text, 0);
  if (start < 0) return undefined;
  const rows: string[][] = [];
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
    if (row && row.length > 0) rows.push(row);
    row = undefined;
  };
  while (i < text.length) {
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
