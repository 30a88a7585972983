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
import { afterAll, describe, it } from 'vitest';
import type { StdioUpstream } from '../../src/index.js';
import { upstreamBin } from '../support.js';
import { text } from '../table-calls.js';
import { checkRealServer } from './matrix.js';
import { htmlRows } from './text-tables.js';

const dir = mkdtempSync(join(tmpdir(), 's2sp-excel-'));
const book = join(dir, 'alerts.xlsx');
copyFileSync(fileURLToPath(new URL('../fixtures/alerts.xlsx', import.meta.url)), book);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const upstream: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [upstreamBin('@negokaz/excel-mcp-server', 'dist/launcher.js')],
};

describe('@negokaz/excel-mcp-server through the proxy', () => {
  it('excel_read_sheet (an HTML table): configured and without a flag, every row redeemed', async () => {
    await checkRealServer({
      server: '@negokaz/excel-mcp-server',
      tool: 'excel_read_sheet',
      upstream,
      args: { fileAbsolutePath: book, sheetName: 'Alerts' },
      abstract: ['B', 'C'],
      rows: (direct) => htmlRows(text(direct)),
      // The sheet's own header row is the table's first data row: 13 rows under the letters.
      expectedRows: 13,
      values: 'text',
    });
  });
});
