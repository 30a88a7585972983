/**
 * A Markdown (GFM) pipe table inside text ("Found 40 stations:" then the table, then a note): the
 * first header line followed by a delimiter line (`| --- | :-: |`), and the pipe lines after it.
 * Line by line, without regular expressions over the whole text.
 *
 * @module
 */

/** The table's cells, or why the text holds no usable one (`undefined`: no table at all). */
export type MarkdownParse =
  | {
      readonly ok: true;
      readonly header: string[];
      readonly records: string[][];
      readonly firstLine: number;
    }
  | { readonly ok: false; readonly reason: string };

/** Splits one pipe line into trimmed cells; `\|` is a literal pipe. */
function cells(line: string): string[] {
  let text = line.trim();
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1);
  const out: string[] = [];
  let cell = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && text[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (c === '|') {
      out.push(cell.trim());
      cell = '';
    } else {
      cell += c;
    }
  }
  out.push(cell.trim());
  return out;
}

function isDelimiterCell(cell: string): boolean {
  let body = cell;
  if (body.startsWith(':')) body = body.slice(1);
  if (body.endsWith(':')) body = body.slice(0, -1);
  if (body.length === 0) return false;
  for (const c of body) if (c !== '-') return false;
  return true;
}

const isPipeLine = (line: string) => line.includes('|');

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
  const lines = text.split(/\r\n|\n|\r/);
  for (let i = 0; i + 1 < lines.length; i++) {
    const headerLine = lines[i] as string;
    if (!isPipeLine(headerLine)) continue;
    const delimiter = cells(lines[i + 1] as string);
    if (!isPipeLine(lines[i + 1] as string) || !delimiter.every(isDelimiterCell)) continue;
    const header = cells(headerLine);
    if (delimiter.length !== header.length) {
      return {
        ok: false,
        reason: `the Markdown table at line ${i + 1} has ${header.length} header cells and ${delimiter.length} in its delimiter line`,
      };
    }
    const records: string[][] = [];
    let count = header.length;
    for (let j = i + 2; j < lines.length; j++) {
      const line = lines[j] as string;
      if (!isPipeLine(line) || line.trim() === '') break;
      const row = cells(line);
      if (row.length !== header.length) {
        return {
          ok: false,
          reason: `line ${j + 1} of the Markdown table has ${row.length} cells, the header ${header.length}`,
        };
      }
      count += row.length;
      if (count > limits.maxCells) {
        return {
          ok: false,
          reason: `the Markdown table has more than ${limits.maxCells.toLocaleString('en-US')} cells`,
        };
      }
      records.push(row);
    }
    return { ok: true, header, records, firstLine: i + 3 };
  }
  return undefined;
}
