import { describe, expect, it } from 'vitest';
import { syncRowsOf } from './__fixtures__/sync-rows.js';
import { prepareTable } from './table.js';

describe("a sync result's rows (syncRows)", () => {
  /** Row `i`'s stored length as `serializeRow` lays it out, from the row's own JSON. */
  const storedLength = (row: unknown, i: number) => {
    const json = JSON.stringify(row);
    return json === '{}' ? `{"_row_id":${i}}`.length : `"_row_id":${i},`.length + json.length;
  };
  const hidden = { event: 'Hidden', note: 'shown' };
  Object.defineProperty(hidden, 'severity', { value: 'not JSON', enumerable: false });

  it("are each row's, exactly, from the two halves of its JSON", () => {
    const rows: object[] = [
      // Unicode of 2, 3 and 4 UTF-8 bytes, a lone surrogate, escapes, nulls and nested values.
      { event: 'été 😀 日本', severity: null, note: 'x\ud800', area: { codes: [1, 2] } },
      // No body columns; an undefined member.
      { severity: 'Minor', event: 'Wind', note: undefined },
      // No abstract columns.
      { note: 'Lake "Travis"\n', extra: { deep: [{ x: 'ß' }] } },
      {},
      { area: [], when: new Date(0), skip: () => 1, extra: null },
      JSON.parse('{"__proto__": {"a": 1}, "event": "proto"}'),
      // A member JSON leaves out is left out of the halves too.
      hidden,
      ...Array.from({ length: 12 }, (_, i) => ({ event: `e${i}`, note: 'n'.repeat(i) })),
    ];
    const read = syncRowsOf(rows, ['event', 'severity']);
    const lengths = read?.rowLengths;
    expect(Array.from(lengths ?? [])).toEqual(rows.map(storedLength));
    // And so the plain length: the rows, their commas and the brackets.
    let plain = rows.length + 1;
    for (const [i, length] of (lengths ?? []).entries())
      plain += length === `{"_row_id":${i}}`.length ? 2 : length - `"_row_id":${i},`.length;
    expect(plain).toBe(JSON.stringify(rows).length);
    // Each row's plain JSON: its members, the abstract's first, then the body's in the table's
    // column order; of the row's own length.
    const order = ['event', 'severity', ...prepareTable(rows).columns];
    for (const [i, row] of rows.entries()) {
      const json = JSON.stringify(row);
      const members = JSON.parse(json) as Record<string, unknown>;
      const reordered = JSON.stringify(
        Object.fromEntries(
          [...new Set(order)]
            .filter((key) => Object.hasOwn(members, key))
            .map((key) => [key, members[key]]),
        ),
      );
      expect(read?.plainRow(i)).toBe(reordered);
      expect(reordered.length).toBe(json.length);
    }
  });

  it('are not read from a table with a toJSON row or a nested object that starts with _row_id', () => {
    expect(
      syncRowsOf([{ event: 'a' }, { event: 'b', toJSON: () => ({ event: 'c' }) }]),
    ).toBeUndefined();
    // One JSON.stringify calls though it is no column.
    const quiet = Object.defineProperty({ event: 'a' }, 'toJSON', { value: () => 'x' });
    expect(syncRowsOf([{ event: 'b' }, quiet], ['event'])).toBeUndefined();
    const nested = [{ event: 'a', list: [{ _row_id: 1 }] }, { event: 'b' }];
    // In the body, and in the abstract.
    expect(syncRowsOf(nested, ['event'])).toBeUndefined();
    expect(syncRowsOf(nested, ['event', 'list'])).toBeUndefined();
    expect(
      syncRowsOf([{ event: 'a' }, { event: 'b', list: [{ x: 1, _row_id: 1 }] }], ['event'])
        ?.rowLengths,
    ).toEqual(
      Uint32Array.from([
        storedLength({ event: 'a' }, 0),
        storedLength({ event: 'b', list: [{ x: 1, _row_id: 1 }] }, 1),
      ]),
    );
    expect(syncRowsOf([])?.rowLengths).toEqual(new Uint32Array(0));
  });
});
