/**
 * Real-server matrix: @negokaz/excel-mcp-server (a Go server whose npm package ships its own
 * binaries) over a copy of test/fixtures/alerts.xlsx (sheet `Alerts`: a header row `id, event,
 * severity, magnitude, area` and 12 rows). `excel_read_sheet` answers with one text block of
 * HTML: headings, a `<table>` whose first row is the column letters (`<th></th><th>A</th>…`) and
 * whose rows start with the row number in a `<th>`, then a metadata list and a notice.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Row } from '@s2sp/core';
import { afterAll, describe, it } from 'vitest';
import type { StdioUpstream } from '../../src/index.js';
import { upstreamBin } from '../support.js';
import { type Result, text } from '../table-calls.js';
import { checkRealServer } from './matrix.js';

const dir = mkdtempSync(join(tmpdir(), 's2sp-excel-'));
const book = join(dir, 'alerts.xlsx');
copyFileSync(fileURLToPath(new URL('../fixtures/alerts.xlsx', import.meta.url)), book);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const upstream: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [upstreamBin('@negokaz/excel-mcp-server', 'dist/launcher.js')],
};

const decode = (html: string) =>
  html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The `<table>` as printed: the first row's cells name the columns, every other row is a row. */
function htmlTable(result: Result): Row[] {
  const table = /<table>([\s\S]*?)<\/table>/.exec(text(result))?.[1] ?? '';
  const cells = [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((tr) =>
    [...(tr[1] ?? '').matchAll(/<t[hd]>([\s\S]*?)<\/t[hd]>/g)].map((cell) => decode(cell[1] ?? '')),
  );
  const [header = [], ...rows] = cells;
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
}

describe('@negokaz/excel-mcp-server through the proxy', () => {
  it('excel_read_sheet (an HTML table): the plain call, the named columns, every row redeemed', async () => {
    await checkRealServer({
      fixture: 'excel-excel_read_sheet',
      upstream,
      table: { name: 'excel_read_sheet' },
      args: { fileAbsolutePath: book, sheetName: 'Alerts' },
      abstract: ['B', 'C'],
      rows: htmlTable,
      // The sheet's own header row is the table's first data row: 13 rows under the letters.
      expectedRows: 13,
      values: 'text',
    });
  });
});
