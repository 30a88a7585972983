/**
 * A Markdown (GFM) pipe table inside text ("Found 40 stations:" then the table, then a note): the
 * first header line followed by a delimiter line (`| --- | :-: |`), and the pipe lines after it.
 * Line by line, without regular expressions over the whole text.
 *
 * @module
 */

import { pacer, runNow, type Steps } from './parse-steps.js';

/** The table's cells, or why the text holds no usable one (`undefined`: no table at all). */
export type MarkdownParse =
  | {
      readonly ok: true;
      readonly header: string[];
      readonly records: string[][];
      readonly firstLine: number;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Splits one pipe line into trimmed cells; `\|` is a literal pipe. `undefined` past `maxCells`
 * cells (a line of a million pipes is not a table worth a million strings).
 */
function* cellSteps(line: string, maxCells: number): Steps<string[] | undefined> {
  let text = line.trim();
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1);
  const out: string[] = [];
  // The current cell is its text before `from` (escaped pipes resolved) plus text[from, i).
  let cell = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */ && text.charCodeAt(i + 1) === 124) {
      cell += `${text.slice(from, i)}|`;
      i++;
      from = i + 1;
    } else if (c === 124 /* | */) {
      out.push((cell + text.slice(from, i)).trim());
      if (out.length > maxCells) return undefined;
      cell = '';
      from = i + 1;
    }
    // A line may be the whole text: it pauses too.
    if ((i & 0xffff) === 0xffff) yield;
  }
  out.push((cell + text.slice(from)).trim());
  return out.length > maxCells ? undefined : out;
}

function isDelimiterCell(cell: string): boolean {
  let body = cell;
  if (body.startsWith(':')) body = body.slice(1);
  if (body.endsWith(':')) body = body.slice(0, -1);
  if (body.length === 0) return false;
  for (const c of body) if (c !== '-') return false;
  return true;
}

/**
 * Only pipes, dashes, colons and white space, with a dash: a line that may be a delimiter line,
 * told without splitting it (every pipe line is a candidate, so most are told this way).
 */
function mayBeDelimiterLine(line: string): boolean {
  let dash = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 45 /* - */) dash = true;
    else if (c !== 124 && c !== 58 && c !== 32 && c !== 9) return false;
  }
  return dash;
}

const isPipeLine = (line: string) => line.includes('|');

const tooManyCells = (maxCells: number) => ({
  ok: false as const,
  reason: `the Markdown table has more than ${maxCells.toLocaleString('en-US')} cells`,
});

/**
 * Finds the first pipe table in `text`.
 *
 * @returns its header and rows; a reason when a table is there but its rows do not fit its
 *   header; `undefined` when there is no table
 */
export function findMarkdownTable(
  text: string,
  limits: { readonly maxCells: number },
): MarkdownParse | undefined {
  return runNow(markdownTableSteps(text, limits));
}

/**
 * {@link findMarkdownTable}, pausing as it goes (see `parse-steps.ts`).
 *
 * @param onRecord - takes the header, then each record, as they are read, instead of the
 *   result's `records` (then empty)
 */
export function* markdownTableSteps(
  text: string,
  limits: { readonly maxCells: number },
  onRecord?: (record: string[]) => void,
): Steps<MarkdownParse | undefined> {
  const { maxCells } = limits;
  const pace = pacer();
  const lines = text.split(/\r\n|\n|\r/);
  for (let i = 0; i + 1 < lines.length; i++) {
    const headerLine = lines[i] as string;
    const next = lines[i + 1] as string;
    if (pace.due(headerLine.length + 1)) yield;
    if (!isPipeLine(headerLine) || !isPipeLine(next) || !mayBeDelimiterLine(next)) continue;
    const delimiter = yield* cellSteps(next, maxCells);
    if (!delimiter) return tooManyCells(maxCells);
    if (!delimiter.every(isDelimiterCell)) continue;
    const header = yield* cellSteps(headerLine, maxCells);
    if (!header) return tooManyCells(maxCells);
    if (delimiter.length !== header.length) {
      return {
        ok: false,
        reason: `the Markdown table at line ${i + 1} has ${header.length} header cells and ${delimiter.length} in its delimiter line`,
      };
    }
    const records: string[][] = [];
    onRecord?.(header);
    let count = header.length;
    for (let j = i + 2; j < lines.length; j++) {
      const line = lines[j] as string;
      if (!isPipeLine(line) || line.trim() === '') break;
      if (pace.due(line.length + 1)) yield;
      const row = yield* cellSteps(line, maxCells);
      if (!row) return tooManyCells(maxCells);
      if (row.length !== header.length) {
        return {
          ok: false,
          reason: `line ${j + 1} of the Markdown table has ${row.length} cells, the header ${header.length}`,
        };
      }
      count += row.length;
      if (count > maxCells) return tooManyCells(maxCells);
      if (onRecord) onRecord(row);
      else records.push(row);
    }
    return { ok: true, header, records, firstLine: i + 3 };
  }
  return undefined;
}
