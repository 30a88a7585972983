import { describe, expect, it } from 'vitest';
import { decodeEntities, findHtmlTable } from './html-table.js';

const limits = { maxCells: 1_000, maxCellChars: 1_000 };

describe('findHtmlTable', () => {
  it('reads the first table: header row, cells with tags, entities and spaces', () => {
    const html = `<p>Results</p><TABLE class="x"><thead><tr><th>id</th><th title="a>b">name</th></tr></thead>
      <tbody><!-- <tr><td>no</td></tr> -->
        <tr><td>1</td><td><b>Smith</b> &amp;\n  <a href="#">Sons</a></td></tr>
        <tr><td colspan="1">2</td><td>&#x41;&#66;&lt;&nbsp;&bogus;</td></tr>
      </tbody></table><table><tr><td>other</td></tr></table>`;
    expect(findHtmlTable(html, limits)).toEqual({
      ok: true,
      header: ['id', 'name'],
      records: [
        ['1', 'Smith & Sons'],
        ['2', 'AB< &bogus;'],
      ],
    });
  });

  it('refuses colspan, rowspan, nested tables and oversize input; no table is undefined', () => {
    expect(findHtmlTable('<table><tr><th colspan=2>a</th></tr></table>', limits)).toMatchObject({
      ok: false,
      reason: /colspan="2"/,
    });
    expect(findHtmlTable("<table><tr><td rowspan='3'>a</td></tr></table>", limits)).toMatchObject({
      ok: false,
      reason: /rowspan/,
    });
    expect(findHtmlTable('<table><tr><td><table></table></td></tr></table>', limits)).toMatchObject(
      {
        ok: false,
        reason: /inside a cell/,
      },
    );
    expect(
      findHtmlTable('<table><tr><td>a</td><td>b</td></tr></table>', { ...limits, maxCells: 1 }),
    ).toMatchObject({
      ok: false,
      reason: /more than 1 cells/,
    });
    expect(
      findHtmlTable(`<table><tr><td>${'x'.repeat(2_000)}</td></tr></table>`, limits),
    ).toMatchObject({
      ok: false,
      reason: /more than 1,000 characters/,
    });
    expect(findHtmlTable('<table><tr><td>a', limits)).toMatchObject({
      ok: false,
      reason: /never closed/,
    });
    expect(findHtmlTable('<p>no table</p><tablet>', limits)).toBeUndefined();
  });

  it('stays linear on hostile input (unclosed quotes and tags)', () => {
    const hostile = `<table><tr><td ${'"'.repeat(50_000)}${'<'.repeat(50_000)}`;
    expect(findHtmlTable(hostile, limits)).toMatchObject({ ok: false });
    expect(decodeEntities('&'.repeat(10_000))).toHaveLength(10_000);
  });
});
