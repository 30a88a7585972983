import {
  attachRowBytes,
  attachRowJson,
  encodeRows,
  prepareTable,
  serializeTable,
} from '@s2sp/core/store';
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../mcp-sdk.js';
import { LargeText } from '../../upstream/large-strings.js';
import { sampledRows } from '../column-catalogue.js';
import { parseJsonPointer } from '../json-pointer.js';
import { columnsOf } from '../tool-call.js';
import { findTable } from './find-table.js';
import { describeBlocks, MAX_KEPT_TEXT } from './other-blocks.js';

const opts = { maxTextLength: 1_000_000 };
const block = (value: unknown) => ({
  type: 'text' as const,
  text: typeof value === 'string' ? value : JSON.stringify(value, null, 2),
});
const text = (...values: unknown[]): CallToolResult => ({ content: values.map(block) });
const ROWS = [{ id: 1 }, { id: 2, name: 'b' }];

describe('findTable: JSON', () => {
  it('finds an array of objects in one text block (server-postgres style)', () => {
    expect(findTable(text(ROWS), opts)).toMatchObject({
      kind: 'table',
      rows: ROWS,
      pointer: '',
      format: 'json',
      source: 0,
      arrays: [{ pointer: '', rows: 2 }],
      others: [],
      blocks: { kept: [], repeats: 0, dropped: [] },
    });
  });

  it('finds the table in one block among several, keeping small notes after it', () => {
    const found = findTable(text('Showing 2 of 1,200.', ROWS, 'Execution time: 3 ms'), opts);
    expect(found).toMatchObject({ kind: 'table', rows: ROWS, source: 1 });
    expect(
      found.kind === 'table' && found.blocks.kept.map((b) => b.type === 'text' && b.text),
    ).toEqual(['Showing 2 of 1,200.', 'Execution time: 3 ms']);
  });

  it('finds rows under a key, nested, beside counts and cursors', () => {
    expect(findTable(text({ rows: ROWS, rowCount: 2 }), opts)).toMatchObject({
      rows: ROWS,
      pointer: '/rows',
    });
    expect(
      findTable(text({ result: { items: ROWS, tags: ['x'] }, next_cursor: null }), opts),
    ).toMatchObject({ rows: ROWS, pointer: '/result/items' });
    expect(findTable(text({ 'a/b': ROWS }), opts)).toMatchObject({ pointer: '/a~1b' });
    // Five levels down is deeper than the rule looks.
    expect(findTable(text({ a: { b: { c: { d: { e: ROWS } } } } }), opts).kind).toBe('not-table');
  });

  it('turns a header plus arrays into rows of objects; refuses ragged ones', () => {
    const doc = {
      columns: [{ name: 'id', type: 'int' }, 'name'],
      rows: [
        [1, 'a'],
        [2, null],
      ],
      rowCount: 2,
    };
    expect(findTable(text(doc), opts)).toMatchObject({
      kind: 'table',
      rows: [
        { id: 1, name: 'a' },
        { id: 2, name: null },
      ],
      pointer: '',
    });
    const ragged = findTable(text({ columns: ['id', 'name'], rows: [[1, 'a'], [2]] }), opts);
    expect(ragged).toMatchObject({ kind: 'not-table', reason: /row 1 has 1 cells, the header 2/ });
  });

  it('treats [] and a wrapper holding only an empty array as zero rows', () => {
    expect(findTable(text([]), opts)).toMatchObject({ kind: 'table', rows: [], pointer: '' });
    expect(findTable(text({ data: [], total: 0 }), opts)).toMatchObject({
      kind: 'table',
      rows: [],
      pointer: '/data',
    });
    expect(findTable(text([1, 2]), opts).kind).toBe('not-table');
  });

  it('lists several arrays with their row counts; table picks one and keeps the others', () => {
    const doc = { entities: ROWS, relations: [{ from: 1, to: 2 }] };
    const ambiguous = findTable(text(doc), opts);
    expect(ambiguous).toMatchObject({
      kind: 'not-table',
      arrays: [
        { pointer: '/entities', rows: 2 },
        { pointer: '/relations', rows: 1 },
      ],
    });
    expect(ambiguous.kind === 'not-table' && ambiguous.reason).toContain('"/relations" (1 rows)');
    for (const table of ['relations', '/relations']) {
      expect(findTable(text(doc), { ...opts, table })).toMatchObject({
        kind: 'table',
        rows: [{ from: 1, to: 2 }],
        pointer: '/relations',
        others: [{ pointer: '/entities', rows: ROWS }],
      });
    }
    expect(findTable(text(doc), { ...opts, table: 'edges' })).toMatchObject({
      kind: 'not-table',
      reason: 'the result has no array named "edges"',
      arrays: [{ pointer: '/entities' }, { pointer: '/relations' }],
    });
  });

  it('takes structuredContent first and drops a text block that repeats it', () => {
    const result: CallToolResult = {
      content: [block(ROWS), block('2 rows')],
      structuredContent: { items: ROWS },
    };
    expect(findTable(result, opts)).toMatchObject({
      kind: 'table',
      source: 'structuredContent',
      pointer: '/items',
      blocks: { kept: [block('2 rows')], repeats: 1, dropped: [] },
    });
  });

  it('describes the blocks it drops: large text that is not the table, images', () => {
    const big = 'x'.repeat(MAX_KEPT_TEXT + 1);
    const result: CallToolResult = {
      content: [block(ROWS), block(big), { type: 'image', data: 'AAAA', mimeType: 'image/png' }],
    };
    const found = findTable(result, opts);
    expect(found.kind === 'table' && found.blocks.dropped).toEqual([
      { index: 1, type: 'text', chars: MAX_KEPT_TEXT + 1 },
      { index: 2, type: 'image', chars: 4 },
    ]);
    expect(describeBlocks(found.kind === 'table' ? found.blocks.dropped : [])).toBe(
      '2 content blocks: text (2,001 characters), image (4 characters)',
    );
  });

  it('follows a configured pointer', () => {
    const doc = { data: { items: [{ a: 1 }] }, other: [{ b: 2 }] };
    expect(
      findTable(text(doc), { ...opts, pointer: parseJsonPointer('/data/items') }),
    ).toMatchObject({
      kind: 'table',
      rows: [{ a: 1 }],
      pointer: '/data/items',
      others: [{ pointer: '/other', rows: [{ b: 2 }] }],
    });
    expect(findTable(text(doc), { ...opts, pointer: parseJsonPointer('/missing') }).kind).toBe(
      'not-table',
    );
  });
});

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
      reason: 'block 0: as csv, line 3 has 1 cells, the header 2',
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

  it('prefers a JSON table in a later block over CSV-like prose in an earlier one', () => {
    expect(findTable(text('took 3 ms, 2 rows\nnext, page', ROWS), opts)).toMatchObject({
      format: 'json',
      source: 1,
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

describe('findTable: keep (an async split reads only the abstract columns)', () => {
  const rows = [
    { id: 1, event: 'Flood', note: 'a "b"' },
    {},
    { event: 'Wind', late: [1, { x: 2 }], ['__proto__']: 'p' },
    ...Array.from({ length: 5_000 }, (_, i) => ({
      id: i,
      event: i % 2 ? 'Flood' : 'Wind',
      more: 'm',
    })),
  ];
  const compact = { content: [{ type: 'text' as const, text: JSON.stringify(rows) }] };

  it('gives the same columns, abstract values and sampled rows, and the rows texts', () => {
    const whole = findTable(compact, opts);
    const kept = findTable(compact, { ...opts, keep: ['event'] });
    if (whole.kind !== 'table' || kept.kind !== 'table') throw new Error('no table');
    expect(columnsOf(kept.rows)).toEqual(columnsOf(whole.rows));
    expect(kept.rows.map((row) => row.event)).toEqual(whole.rows.map((row) => row.event));
    for (const i of sampledRows(rows.length)) expect(kept.rows[i]).toEqual(whole.rows[i]);
    // Not a full row: a value not kept is not there (and `more` only where it first appears).
    expect(kept.rows[4]).toEqual({ event: 'Flood' });
    const texts = kept.rowTexts?.();
    expect(texts?.map((t) => JSON.parse(t))).toEqual(whole.rows);
    expect(kept.rowTexts?.()).toBeUndefined();
  });

  it('stores the same rows as a whole read would', () => {
    const stored = (found: ReturnType<typeof findTable>, texts: boolean) => {
      if (found.kind !== 'table') throw new Error('no table');
      const own = texts ? found.rowTexts?.() : undefined;
      if (own) attachRowJson(found.rows, own);
      const table = prepareTable(found.rows);
      return { columns: table.columns, rows: serializeTable(table).rows };
    };
    const whole = stored(findTable(compact, opts), false);
    expect(stored(findTable(compact, { ...opts, keep: ['event'] }), true)).toEqual(whole);
  });

  it('reads the whole document where keeping cannot: line breaks, a named table, not an array of objects', () => {
    const pretty = { content: [{ type: 'text' as const, text: JSON.stringify(rows, null, 1) }] };
    const named = findTable(compact, { ...opts, keep: ['event'], table: '' });
    for (const found of [findTable(pretty, { ...opts, keep: ['event'] }), named]) {
      if (found.kind !== 'table') throw new Error('no table');
      expect(found.rows[4]).toEqual(rows[4]);
    }
    const mixed = { content: [{ type: 'text' as const, text: '[{"a":1},2]' }] };
    expect(findTable(mixed, { ...opts, keep: ['a'] }).kind).toBe('not-table');
    const trailing = { content: [{ type: 'text' as const, text: '[{"a":1}] [{"a":2}]' }] };
    expect(findTable(trailing, { ...opts, keep: ['a'] })).toMatchObject(findTable(trailing, opts));
  });
});

describe('findTable on a text block kept as bytes', () => {
  const large = (json: string): CallToolResult => {
    const bytes = Buffer.from(json);
    const buffer = new (
      ArrayBuffer as unknown as new (
        n: number,
        o: { maxByteLength: number },
      ) => ArrayBuffer
    )(bytes.length, { maxByteLength: 2 * bytes.length + 1024 });
    const view = new Uint8Array(buffer);
    view.set(bytes);
    return { content: [{ type: 'text', text: new LargeText(view) as unknown as string }] };
  };
  const rows = Array.from({ length: 300 }, (_, i) => ({
    event: i % 2 ? 'Heat' : 'Flood "warning" é😀',
    severity: 'Minor',
    geo: { points: [[i, 1.5]], note: null },
    ok: i % 3 === 0,
  }));

  it('reads the rows from the bytes and hands the store the bytes, byte for byte a plain store', () => {
    const found = findTable(large(JSON.stringify(rows)), { ...opts, keep: ['event'] });
    if (found.kind !== 'table') throw new Error(found.reason);
    expect(found.rows.map((row) => row.event)).toEqual(rows.map((row) => row.event));
    expect(found.rowTexts).toBeUndefined();
    const bytes = found.rowBytes?.();
    expect(found.rowBytes?.()).toBeUndefined();
    if (!bytes) throw new Error('no row bytes');
    attachRowBytes(found.rows, bytes);
    const stored = encodeRows(serializeTable(prepareTable(found.rows)).rows);
    expect({ joined: stored.joined.slice(), ends: stored.ends }).toEqual(
      encodeRows(serializeTable(prepareTable(rows)).rows),
    );
  });

  it('reads other documents as text, as before: not a table, not JSON, an empty array, _row_id', () => {
    const keep = { ...opts, keep: ['event'] };
    for (const json of ['[1,2,3]', '[true,null]', '["a"]']) {
      expect(findTable(large(json), keep).kind, json).toBe('not-table');
    }
    expect(findTable(large('[{"a":1},'), keep)).toMatchObject({
      kind: 'not-table',
      reason: 'block 0 is text that is not valid JSON',
    });
    const empty = findTable(large('[]'), keep);
    expect(empty.kind === 'table' && empty.rows).toEqual([]);
    // Pretty-printed: read as text (a stored row is one line), rows whole.
    const pretty = findTable(large(JSON.stringify(rows.slice(0, 2), null, 2)), keep);
    expect(pretty.kind === 'table' && pretty.rows).toEqual(rows.slice(0, 2));
    expect(pretty.kind === 'table' && pretty.rowBytes).toBeFalsy();
    const withId = findTable(large('[{"a":1},{"_row_id":2}]'), keep);
    if (withId.kind !== 'table') throw new Error('not a table');
    const bytes = withId.rowBytes?.();
    if (!bytes) throw new Error('no row bytes');
    attachRowBytes(withId.rows, bytes);
    expect(() => prepareTable(withId.rows)).toThrow(/_row_id/);
  });
});
