import { describe, expect, it } from 'vitest';
import { opts, REAL, ROWS, text } from './__fixtures__/tool-results.js';
import { findTable } from './find-table.js';
import { MAX_NOTE_CHARS, upstreamNote, upstreamNoteText } from './upstream-note.js';

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, name: `n${i}` }));

describe('upstreamNote: what the upstream says about its answer', () => {
  it('reads a capped answer (mcp-postgres-server 0.3.1): count, truncated and hint', () => {
    const found = findTable(REAL.cappedQuery(rows(22), 150), opts);
    expect(found).toMatchObject({ kind: 'table', pointer: '/rows' });
    if (found.kind !== 'table') return;
    expect(found.rows).toHaveLength(22);
    expect(found.note).toEqual({
      partial: [
        ['rowCount', 150],
        ['truncated', true],
      ],
      total: 150,
      notes: [
        [
          'hint',
          'returned 22 of 150 rows (~32768-byte budget): add LIMIT/WHERE or select fewer columns',
        ],
      ],
    });
    const words = upstreamNoteText(found.note ?? { partial: [], notes: [] }, 22);
    expect(words).toContain('22 of 150 rows');
    expect(words).toContain('"truncated": true');
    expect(words).toContain('"hint": "returned 22 of 150 rows');
  });

  it('says nothing for a whole answer, and keeps counts that match the rows quiet', () => {
    expect(findTable(REAL.cappedQuery(rows(5), 5), opts)).toMatchObject({ kind: 'table' });
    const whole = findTable(REAL.cappedQuery(rows(5), 5), opts);
    expect(whole.kind === 'table' && whole.note).toBeUndefined();
    expect(upstreamNote({ data: ROWS, total: 2, next_cursor: null }, '/data', 2)).toBeUndefined();
    expect(upstreamNote(ROWS, '', 2)).toBeUndefined();
  });

  it('reads has_more, cursors and warnings under any spelling, nearest object first', () => {
    expect(
      upstreamNote(
        {
          result: { items: ROWS, has_more: true, next_cursor: 'abc' },
          total_count: 9,
          more: false,
        },
        '/result/items',
        2,
      ),
    ).toEqual({
      partial: [
        ['has_more', true],
        ['next_cursor', 'abc'],
        ['total_count', 9],
      ],
      total: 9,
      notes: [],
    });
    // A header-plus-arrays table's own object counts; `hasMore: false` says nothing.
    expect(
      upstreamNote({ columns: ['a'], rows: [[1]], rowCount: 3, hasMore: false }, '', 1),
    ).toMatchObject({ partial: [['rowCount', 3]], total: 3 });
    expect(upstreamNote({ rows: ROWS, warning: 'stale replica' }, '/rows', 2)).toEqual({
      partial: [],
      notes: [['warning', 'stale replica']],
    });
  });

  it('reads a count as the table’s total only where it counts that array (duckdb describe_table)', () => {
    // A table's description: one row per column, beside the table's own row count.
    const columns = ['id', 'city', 'state', 'zip', 'population', 'note'].map((name) => ({
      column_name: name,
      column_type: name === 'id' || name === 'population' ? 'BIGINT' : 'VARCHAR',
      null: 'YES',
    }));
    const described = { table: 'cities', rowCount: 100, columns };
    expect(upstreamNote(described, '/columns', 6)).toBeUndefined();
    const found = findTable(text(described), opts);
    expect(found).toMatchObject({ kind: 'table', pointer: '/columns' });
    expect(found.kind === 'table' && found.note).toBeUndefined();
    // A count named for the array counts it; a row count counts an array of rows, by any name.
    expect(upstreamNote({ columns, columnCount: 9 }, '/columns', 6)).toMatchObject({ total: 9 });
    for (const [name, key] of <[string, string][]>[
      ['rows', 'row_count'],
      ['results', 'totalResults'],
      ['items', 'num_rows'],
      ['users', 'totalUsers'],
      ['entries', 'entryCount'],
    ]) {
      expect(upstreamNote({ [name]: ROWS, [key]: 9 }, `/${name}`, 2), key).toMatchObject({
        total: 9,
      });
    }
    expect(upstreamNote({ users: ROWS, rowCount: 9 }, '/users', 2)).toBeUndefined();
    // A generic count, only where nothing else can be meant: not beside another array of
    // objects, not across a list (dbhub's statements).
    expect(upstreamNote({ data: ROWS, total: 9 }, '/data', 2)).toMatchObject({ total: 9 });
    expect(upstreamNote({ data: ROWS, errors: [{ at: 1 }], total: 9 }, '/data', 2)).toBeUndefined();
    expect(
      upstreamNote({ statements: [{ rows: ROWS, count: 2 }], count: 9 }, '/statements/0/rows', 2),
    ).toBeUndefined();
  });

  it('cuts a long upstream text, and quotes it as JSON so it cannot pose as the proxy', () => {
    const note = upstreamNote({ rows: ROWS, hint: `x"\n${'y'.repeat(2000)}` }, '/rows', 2);
    const [, hint] = note?.notes[0] ?? [];
    expect(hint?.length).toBeLessThan(MAX_NOTE_CHARS + 40);
    const words = upstreamNoteText(note ?? { partial: [], notes: [] }, 2);
    expect(words).toContain('"hint": "x\\"\\n');
    expect(words).not.toContain('\n');
  });

  it('is found on a JSON text block only around the table, not in text formats', () => {
    const found = findTable(text('id,name\n1,a\n2,b'), opts);
    expect(found.kind === 'table' && found.note).toBeUndefined();
  });
});
