import { describe, expect, it } from 'vitest';
import {
  CHUNK_CHARS,
  CHUNK_PAGES,
  chunkPages,
  MAX_PAGE_ROWS,
  rowsPerPage,
  splitPage,
} from './row-pages.js';

const rowsOf = (count: number, width: number) =>
  Array.from({ length: count }, (_, i) => `{"_row_id":${i},"x":"${'y'.repeat(width)}"}`);
const size = (rows: string[]) => rows.reduce((sum, row) => sum + row.length, 0);

describe('rowsPerPage', () => {
  it('fills a page with about 8 KiB of rows, at most 64 rows', () => {
    const medium = rowsOf(100, 280); // about 300 characters a row
    expect(rowsPerPage(medium, size(medium))).toBe(Math.floor(8192 / (size(medium) / 100)));
    const tiny = rowsOf(100, 1);
    expect(rowsPerPage(tiny, size(tiny))).toBe(MAX_PAGE_ROWS);
    const wide = rowsOf(3, 20_000);
    expect(rowsPerPage(wide, size(wide))).toBe(1);
  });

  it('keeps one row per page when a row contains a newline', () => {
    const rows = ['{"a":1}', '{"a":"line\nbreak"}'];
    expect(rowsPerPage(rows, size(rows))).toBe(1);
  });

  it('handles an empty table', () => {
    expect(rowsPerPage([], 0)).toBe(1);
  });
});

describe('chunkPages and splitPage', () => {
  it('round-trips every row in order, with consecutive page indexes', () => {
    const rows = rowsOf(40_000, 50); // about 2.7 MB: three chunks
    const perPage = rowsPerPage(rows, size(rows));
    const chunks = chunkPages(rows, perPage);
    expect(chunks.length).toBeGreaterThan(1);
    let next = 0;
    const back: string[] = [];
    for (const chunk of chunks) {
      expect(chunk.start).toBe(next);
      expect(chunk.pages.length).toBeLessThanOrEqual(CHUNK_PAGES);
      next += chunk.pages.length;
      for (const page of chunk.pages) back.push(...splitPage(page, perPage));
    }
    expect(back).toEqual(rows);
  });

  it('cuts chunks at about 1 MiB, with at least one page each', () => {
    const rows = rowsOf(4, 1_200_000); // each wider than a chunk on its own
    expect(chunkPages(rows, 1).map((chunk) => chunk.pages.length)).toEqual([1, 1, 1, 1]);
    const fifths = rowsOf(12, 250_000); // four fit in 1 MiB
    expect(chunkPages(fifths, 1).map((chunk) => chunk.pages.length)).toEqual([4, 4, 4]);
    const medium = rowsOf(20_000, 300);
    for (const chunk of chunkPages(medium, rowsPerPage(medium, size(medium)))) {
      const chars = chunk.pages.reduce((sum, page) => sum + page.length, 0);
      expect(chars).toBeLessThanOrEqual(CHUNK_CHARS);
    }
  });

  it('makes one empty chunk for an empty table', () => {
    expect(chunkPages([], 1)).toEqual([{ start: 0, pages: [] }]);
  });

  it('keeps a row with a newline whole when pages hold one row', () => {
    expect(splitPage('{"a":"x\ny"}', 1)).toEqual(['{"a":"x\ny"}']);
  });
});
