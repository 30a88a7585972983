import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../mcp-sdk.js';
import { opts, REAL, ROWS, text } from './__fixtures__/tool-results.js';
import { findTable } from './find-table.js';
import { upstreamWordsText } from './upstream-note.js';

describe('findTable: JSON first, then the text formats', () => {
  it('prefers a JSON table in a later block over CSV-like prose in an earlier one', () => {
    expect(findTable(text('took 3 ms, 2 rows\nnext, page', ROWS), opts)).toMatchObject({
      format: 'json',
      source: 1,
    });
  });
});

describe('findTable: not a table', () => {
  it('says why, and what the blocks were', () => {
    const cases: [CallToolResult, RegExp][] = [
      [{ content: [{ type: 'text', text: '[1]' }], isError: true }, /error/],
      [text('hello'), /holds no table/],
      [text('[{"a":'), /not valid JSON/],
      [{ content: [] }, /no content blocks/],
      [{ content: [{ type: 'image', data: '', mimeType: 'image/png' }] }, /holds no table/],
    ];
    for (const [result, reason] of cases) {
      const found = findTable(result, opts);
      expect(found.kind).toBe('not-table');
      expect(found.kind === 'not-table' && found.reason).toMatch(reason);
    }
    expect(findTable(text('hello', 'x'.repeat(10)), opts)).toMatchObject({
      blocks: [
        { index: 0, type: 'text', chars: 5 },
        { index: 1, type: 'text', chars: 10 },
      ],
    });
    expect(findTable(text([{ a: 'x'.repeat(100) }]), { maxTextLength: 50 })).toMatchObject({
      kind: 'not-table',
      reason: /more than the 50/,
    });
  });
});

describe('findTable: a JSON document after prose in the same block', () => {
  it('reads the rows after the prose (@henkey/postgres-mcp-server) and keeps the prose', () => {
    expect(findTable(REAL.proseThenJson(ROWS), opts)).toMatchObject({
      kind: 'table',
      format: 'json',
      source: 0,
      rows: ROWS,
      blocks: {
        kept: [
          {
            type: 'text',
            text: upstreamWordsText({
              before: 'Query executed successfully. Retrieved 2 rows.\n\nResults:',
              after: '',
            }),
          },
        ],
      },
    });
  });

  it('does not take a brace in prose for a table, nor complain of its JSON', () => {
    expect(findTable(text('Use it like this:\n{ not json }'), opts)).toMatchObject({
      kind: 'not-table',
      reason: /holds no table/,
    });
  });
});

describe('findTable: prose before and after the JSON in one block, and prose in place of rows', () => {
  const cities = [1, 2, 3, 4, 5, 6, 7].map((id) => ({ id, city: `c${id}` }));

  it('splits around the array (@pollinations/mcp-server-sqlite), keeping both sides as the upstream’s words', () => {
    const found = findTable(REAL.proseAroundJson(cities), opts);
    expect(found).toMatchObject({ kind: 'table', format: 'json', source: 0, pointer: '' });
    if (found.kind !== 'table') return;
    expect(found.rows).toEqual(cities.slice(0, 5));
    const url = 'http://localhost:3000/query?sql=SELECT%20*%20FROM%20cities';
    expect(found.blocks.kept).toEqual([
      {
        type: 'text',
        text: upstreamWordsText({
          before: 'Query result\n\nPreview (first 5 rows):',
          after: `Total rows: 7\n\nFull results available at:\n- CSV: ${url}\n- JSON: ${url}&format=json`,
        }),
      },
    ]);
    // The array first, then prose: the same.
    const after = findTable(text(`${JSON.stringify(ROWS, null, 2)}\n\nTotal rows: 2`), opts);
    expect(after).toMatchObject({ kind: 'table', rows: ROWS });
    // Two documents in a block are not a document among prose.
    expect(findTable(text('[{"a":1}]\n[{"a":2}]'), opts).kind).toBe('not-table');
  });

  it('reads prose alone from a known table tool as 0 rows with its words, and from any other tool as no table', () => {
    const none = REAL.proseAroundJson([]);
    expect(findTable(none, opts)).toMatchObject({ kind: 'not-table' });
    const found = findTable(none, { ...opts, knownTable: true });
    expect(found).toMatchObject({ kind: 'table', rows: [], arrays: [], others: [] });
    if (found.kind !== 'table') return;
    expect(found.blocks.kept).toEqual([
      {
        type: 'text',
        text: upstreamWordsText(
          { before: 'Query executed successfully but returned no results.', after: '' },
          false,
        ),
      },
    ]);
    // Not prose alone: an image, a long text, JSON that is not valid.
    const picture: CallToolResult = {
      content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }],
    };
    expect(findTable(picture, { ...opts, knownTable: true }).kind).toBe('not-table');
    expect(findTable(text('x'.repeat(5_000)), { ...opts, knownTable: true }).kind).toBe(
      'not-table',
    );
    expect(findTable(text('[{"a": 1'), { ...opts, knownTable: true }).kind).toBe('not-table');
  });
});
