import { describe, expect, it } from 'vitest';
import { parseJsonPointer } from '../json-pointer.js';
import { opts, ROWS, text } from './__fixtures__/tool-results.js';
import { findTable } from './find-table.js';

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

  it("finds one statement's rows inside a one-row array (dbhub), and keeps a one-row table whole", () => {
    const answer = {
      success: true,
      data: { statements: [{ sql: 'SELECT', rows: ROWS, count: 2 }] },
    };
    expect(findTable(text(answer), opts)).toMatchObject({
      kind: 'table',
      rows: ROWS,
      pointer: '/data/statements/0/rows',
      arrays: [{ pointer: '/data/statements/0/rows', rows: 2 }],
    });
    const none = { statements: [{ sql: 'SELECT', rows: [], count: 0 }] };
    expect(findTable(text(none), opts)).toMatchObject({ rows: [], pointer: '/statements/0/rows' });
    // A one-row table whose row holds a list of objects, or two of them, stays the table.
    const tagged = [{ id: 1, tags: [{ n: 1 }, { n: 2 }] }];
    expect(findTable(text({ rows: tagged }), opts)).toMatchObject({
      rows: tagged,
      pointer: '/rows',
    });
    const two = { statements: [{ rows: ROWS, data: ROWS }] };
    expect(findTable(text(two), opts)).toMatchObject({
      rows: two.statements,
      pointer: '/statements',
    });
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
