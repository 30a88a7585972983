import { encodeRows } from '@s2sp/core/store';
import { prepareTable, serializeTable } from '@s2sp/server';
import { describe, expect, it } from 'vitest';
import { sampledRows } from '../column-catalogue.js';
import { columnsOf } from '../other-parts.js';
import { largeText, opts } from './__fixtures__/tool-results.js';
import { findTable } from './find-table.js';

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
      const table = prepareTable(found.rows);
      return { columns: table.columns, rows: serializeTable(table, own && { texts: own }).rows };
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
  const rows = Array.from({ length: 300 }, (_, i) => ({
    event: i % 2 ? 'Heat' : 'Flood "warning" é😀',
    severity: 'Minor',
    geo: { points: [[i, 1.5]], note: null },
    ok: i % 3 === 0,
  }));

  it('reads the rows from the bytes and hands the store the bytes, byte for byte a plain store', () => {
    const found = findTable(largeText(JSON.stringify(rows)), { ...opts, keep: ['event'] });
    if (found.kind !== 'table') throw new Error(found.reason);
    expect(found.rows.map((row) => row.event)).toEqual(rows.map((row) => row.event));
    expect(found.rowTexts).toBeUndefined();
    const bytes = found.rowBytes?.();
    expect(found.rowBytes?.()).toBeUndefined();
    if (!bytes) throw new Error('no row bytes');
    const stored = encodeRows(serializeTable(prepareTable(found.rows), { bytes }));
    expect({ joined: stored.joined.slice(), ends: stored.ends }).toEqual(
      encodeRows(serializeTable(prepareTable(rows))),
    );
  });

  it('reads other documents as text, as before: not a table, not JSON, an empty array, _row_id', () => {
    const keep = { ...opts, keep: ['event'] };
    for (const json of ['[1,2,3]', '[true,null]', '["a"]']) {
      expect(findTable(largeText(json), keep).kind, json).toBe('not-table');
    }
    expect(findTable(largeText('[{"a":1},'), keep)).toMatchObject({
      kind: 'not-table',
      reason: 'block 0 is text that is not valid JSON',
    });
    const empty = findTable(largeText('[]'), keep);
    expect(empty.kind === 'table' && empty.rows).toEqual([]);
    // Pretty-printed: read as text (a stored row is one line), rows whole.
    const pretty = findTable(largeText(JSON.stringify(rows.slice(0, 2), null, 2)), keep);
    expect(pretty.kind === 'table' && pretty.rows).toEqual(rows.slice(0, 2));
    expect(pretty.kind === 'table' && pretty.rowBytes).toBeFalsy();
    const withId = findTable(largeText('[{"a":1},{"_row_id":2}]'), keep);
    if (withId.kind !== 'table') throw new Error('not a table');
    const bytes = withId.rowBytes?.();
    if (!bytes) throw new Error('no row bytes');
    expect(() => serializeTable(prepareTable(withId.rows), { bytes })).toThrow(/_row_id/);
  });
});
