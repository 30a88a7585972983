import { describe, expect, it } from 'vitest';
import type { LargeText } from '../../upstream/large-strings.js';
import { largeText, opts, ROWS, text } from './__fixtures__/tool-results.js';
import { findTable } from './find-table.js';
import { TEXT_FORMATS, TEXT_TABLE_FORMATS } from './text-formats.js';

describe('findTable: text formats', () => {
  it('reads CSV and TSV, typing only the columns numeric in every row', () => {
    const csv = 'id,zip,name\n1,02134,"Smith, J"\n2,10001,Lee\n';
    expect(findTable(text(csv), opts)).toMatchObject({
      kind: 'table',
      format: 'csv',
      rows: [
        { id: 1, zip: '02134', name: 'Smith, J' },
        { id: 2, zip: '10001', name: 'Lee' },
      ],
    });
    expect(findTable(text('a\tb\n1\tx'), opts)).toMatchObject({
      format: 'tsv',
      rows: [{ a: 1, b: 'x' }],
    });
    expect(findTable(text('a,b\n1,2\n3'), opts)).toMatchObject({
      kind: 'not-table',
      reason: 'block 0: as CSV, line 3 has 1 cells, the header 2',
    });
  });

  it('reads a Markdown table inside prose, and refuses a wrong column count', () => {
    const md = 'Found 2 stations:\n\n| id | name |\n|----|------|\n| 1 | A |\n| 2 | B |\n\nDone.';
    expect(findTable(text(md), opts)).toMatchObject({
      kind: 'table',
      format: 'markdown',
      source: 0,
      rows: [
        { id: 1, name: 'A' },
        { id: 2, name: 'B' },
      ],
    });
    expect(findTable(text('| a | b |\n|---|---|\n| 1 |'), opts)).toMatchObject({
      kind: 'not-table',
      reason: /line 3 of the Markdown table has 1 cells/,
    });
  });

  it('reads an HTML table and refuses colspan', () => {
    const html = '<table><tr><th>id</th><th>v</th></tr><tr><td>1</td><td>x</td></tr></table>';
    expect(findTable(text(html), opts)).toMatchObject({
      format: 'html',
      rows: [{ id: 1, v: 'x' }],
    });
    expect(findTable(text('<table><tr><td colspan="2">a</td></tr></table>'), opts)).toMatchObject({
      kind: 'not-table',
      reason: /colspan/,
    });
  });

  it("reads a spreadsheet server's HTML sheet: an empty corner cell gets a name", () => {
    const sheet =
      '<h2>Sheet Data</h2>\n<table>\n<tr><th></th><th>A</th><th>B</th></tr>\n<tr><th>1</th><td>id</td><td>area</td></tr>\n<tr><th>2</th><td>1</td><td>County 1 &amp; &lt;north&gt;</td></tr>\n</table>\n<ul><li>notice</li></ul>';
    expect(findTable(text(sheet), opts)).toMatchObject({
      kind: 'table',
      format: 'html',
      rows: [
        { column_1: 1, A: 'id', B: 'area' },
        { column_1: 2, A: '1', B: 'County 1 & <north>' },
      ],
    });
  });

  it('reads JSON Lines and names an invalid line', () => {
    expect(findTable(text('{"a":1}\n{"a":2}'), opts)).toMatchObject({
      format: 'jsonl',
      rows: [{ a: 1 }, { a: 2 }],
    });
    expect(findTable(text('{"a":1}\n{"a":'), opts)).toMatchObject({
      kind: 'not-table',
      reason: /line 2 is not valid JSON/,
    });
  });

  it('tries only a configured format', () => {
    expect(findTable(text('a;b'), { ...opts, format: 'csv' })).toMatchObject({
      kind: 'table',
      rows: [],
      format: 'csv',
    });
    expect(findTable(text(ROWS), { ...opts, format: 'csv' }).kind).toBe('not-table');
    expect(findTable(text('x\ty'), { ...opts, format: 'markdown' })).toMatchObject({
      kind: 'not-table',
      reason: 'block 0: the text has no Markdown table',
    });
  });
});

describe('findTable: a large text kept as bytes', () => {
  const notes = ['plain', 'with, comma', 'said "hi"', 'two\nlines', 'ünïcödé 🌧'];
  const lines = Array.from({ length: 20_000 }, (_, i) => {
    const note = notes[i % notes.length] as string;
    return `${i},${i % 3 ? 'Flood' : 'Wind'},${/[,"\n]/.test(note) ? `"${note.replace(/"/g, '""')}"` : note}`;
  });
  const csv = `id,event,note\n${lines.join('\r\n')}\r\n`;
  const keep = { ...opts, keep: ['event'] };

  it('reads a CSV from its bytes, the same table as from the text, and gives the bytes back', () => {
    const result = largeText(csv);
    const block = result.content[0] as { text: unknown };
    const large = block.text as LargeText;
    const found = findTable(result, keep);
    const expected = findTable(text(csv), keep);
    if (found.kind !== 'table' || expected.kind !== 'table') throw new Error('no table');
    expect(found.format).toBe('csv');
    expect(found.rows).toEqual(expected.rows);
    const bytes = found.rowBytes?.();
    const expectedBytes = expected.rowBytes?.();
    expect(bytes && Buffer.from(bytes.bytes)).toEqual(
      expectedBytes && Buffer.from(expectedBytes.bytes),
    );
    // Never decoded whole: the block still holds the bytes' owner, and its buffer is given back.
    expect(block.text).toBe(large);
    expect(large.bytes.buffer.byteLength).toBe(0);
  });

  it('decodes the bytes for a format that reads only text, and keeps them for the next format', () => {
    const markdown = largeText('| id | event |\n|---|---|\n| 1 | Flood |\n');
    expect(findTable(markdown, keep)).toMatchObject({ kind: 'table', format: 'markdown' });
    expect(typeof (markdown.content[0] as { text: unknown }).text).toBe('string');
    // CSV reads the bytes and refuses them (line 2 has one cell); TSV reads the same bytes.
    const tsv = largeText('a,b\tc\n1\t2\n');
    const block = tsv.content[0] as { text: unknown };
    const large = block.text as LargeText;
    expect(findTable(tsv, keep)).toMatchObject({
      kind: 'table',
      format: 'tsv',
      rows: [{ 'a,b': 1, c: 2 }],
    });
    expect(block.text).toBe(large);
  });

  it('detects each format from the bytes as from the text', () => {
    const samples = [
      csv,
      'a\tb\n1\t2',
      '  {"a":1}\n{"a":2}',
      '<TABLE class="x"><tr><td>1</td></tr></TABLE>',
      '<tables> are not tables',
      '| a |\n|---|\n| 1 |',
      'a,b',
      '\n a,b\n1,2',
      'prose, then\nmore',
      '',
    ];
    for (const sample of samples) {
      for (const format of TEXT_FORMATS) {
        const probe = Buffer.from(sample);
        expect(TEXT_TABLE_FORMATS[format].detect(probe), `${format}: ${sample.slice(0, 30)}`).toBe(
          TEXT_TABLE_FORMATS[format].detect(sample),
        );
      }
    }
    expect(TEXT_TABLE_FORMATS.html.detect('<TABLE class="x">')).toBe(true);
    expect(TEXT_TABLE_FORMATS.html.detect('<tables>')).toBe(false);
  });
});
