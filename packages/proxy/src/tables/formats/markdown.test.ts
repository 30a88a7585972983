import { describe, expect, it } from 'vitest';
import { findMarkdownTable } from './markdown.js';

const limits = { maxCells: 1_000 };

describe('findMarkdownTable', () => {
  it('finds the table inside prose, with escaped pipes and alignment', () => {
    const text =
      'Found 2 stations:\n\n| id | name | note |\n|---:|:----|:-:|\n| 1 | Alpha | a \\| b |\n| 2 | Beta | |\n\nShowing 2 of 2.';
    expect(findMarkdownTable(text, limits)).toEqual({
      ok: true,
      header: ['id', 'name', 'note'],
      records: [
        ['1', 'Alpha', 'a | b'],
        ['2', 'Beta', ''],
      ],
      firstLine: 5,
    });
  });

  it('refuses a row with a wrong column count, naming its line; no table is undefined', () => {
    const text = '| a | b |\n| - | - |\n| 1 | 2 |\n| 3 |';
    expect(findMarkdownTable(text, limits)).toEqual({
      ok: false,
      reason: 'line 4 of the Markdown table has 1 cells, the header 2',
    });
    expect(findMarkdownTable('a | b\nno delimiter line', limits)).toBeUndefined();
    expect(findMarkdownTable('| a | b |\n| - | - |\n| 1 | 2 |', { maxCells: 3 })).toMatchObject({
      ok: false,
      reason: /more than 3 cells/,
    });
  });
});
