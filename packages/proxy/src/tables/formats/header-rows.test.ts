import { describe, expect, it } from 'vitest';
import { isNumberText, rowsFromHeader } from './header-rows.js';

const text = { typeNumbers: true, firstLine: 2, unit: 'line' };

describe('rowsFromHeader', () => {
  it('makes numbers of a column only when every cell is a number', () => {
    const built = rowsFromHeader(
      ['id', 'zip', 'score', 'big'],
      [
        ['1', '02134', '1.5', '12345678901234567890'],
        ['2', '10001', '', '1'],
      ],
      text,
    );
    expect(built).toEqual({
      ok: true,
      rows: [
        { id: 1, zip: '02134', score: '1.5', big: '12345678901234567890' },
        { id: 2, zip: '10001', score: '', big: '1' },
      ],
    });
    expect(
      ['0', '-3', '74.5', '74.50', '2.5e3', '1e400', '007', '1.', ' 1', '0x10'].map(isNumberText),
    ).toEqual([true, true, true, false, false, false, false, false, false, false]);
  });

  it('keeps JSON values as they are without typeNumbers', () => {
    expect(rowsFromHeader(['a', 'b'], [[1, null]], { ...text, typeNumbers: false })).toEqual({
      ok: true,
      rows: [{ a: 1, b: null }],
    });
  });

  it('refuses ragged rows, empty and repeated column names', () => {
    expect(rowsFromHeader(['a', 'b'], [['1', '2'], ['3']], text)).toEqual({
      ok: false,
      reason: 'line 3 has 1 cells, the header 2',
    });
    expect(rowsFromHeader(['a', ' '], [], text)).toMatchObject({
      ok: false,
      reason: /header cell 2/,
    });
    expect(rowsFromHeader(['a', 3], [], text)).toMatchObject({
      ok: false,
      reason: /header cell 2/,
    });
    // An empty corner cell (a spreadsheet's, above its row numbers) is named, not refused.
    expect(rowsFromHeader(['', 'a'], [['1', 'x']], text)).toEqual({
      ok: true,
      rows: [{ column_1: 1, a: 'x' }],
    });
    expect(rowsFromHeader(['a', 'a'], [], text)).toMatchObject({ ok: false, reason: /twice/ });
  });

  it('keeps __proto__ as a plain column', () => {
    const built = rowsFromHeader(['__proto__'], [['x']], text);
    expect(built.ok && Object.keys(built.rows[0] ?? {})).toEqual(['__proto__']);
  });
});
