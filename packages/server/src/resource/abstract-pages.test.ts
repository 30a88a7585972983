import { describe, expect, it } from 'vitest';
import { splitPages } from './abstract-pages.js';

describe('splitPages', () => {
  it('fills each page up to its room', () => {
    expect(splitPages([3, 3, 3, 3, 3], 6, 9)).toEqual([
      [0, 2],
      [2, 5],
    ]);
  });

  it('puts at least one row on a page even when it is over the room', () => {
    expect(splitPages([10, 10], 5, 5)).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });

  it('returns one empty page for no rows', () => {
    expect(splitPages([], 5, 5)).toEqual([[0, 0]]);
  });
});
