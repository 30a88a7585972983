/**
 * The matrix tests' own readers of the text tables real servers print (CSV, an HTML `<table>`),
 * written from the servers' documentation, never the proxy's detection: what they read is what
 * the proxy's answer is compared with.
 */
import type { Row } from '@s2sp/core';

/** RFC 4180 CSV as printed: the header line names the columns; quoted cells may hold `,` `"` and line breaks. */
export function csvRows(body: string): Row[] {
  const lines: string[][] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else if (c === '\n') {
      cells.push(cell);
      lines.push(cells);
      cells = [];
      cell = '';
    } else cell += c;
  }
  const [header = [], ...rows] = lines;
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
}

const decode = (html: string) =>
  html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The first `<table>` as printed: the first row's cells name the columns, every other row is a row. */
export function htmlRows(html: string): Row[] {
  const table = /<table>([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
  const cells = [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((tr) =>
    [...(tr[1] ?? '').matchAll(/<t[hd]>([\s\S]*?)<\/t[hd]>/g)].map((cell) => decode(cell[1] ?? '')),
  );
  const [header = [], ...rows] = cells;
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
}
