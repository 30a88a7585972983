import { describe, expect, it } from 'vitest';
import { profileColumns } from './column-profile.js';

describe('profileColumns', () => {
  const rows = [
    { event: 'Flood Warning', magnitude: 3 },
    { event: 'Wind Advisory', magnitude: 7 },
    { event: 'Flood Warning', magnitude: null },
    { event: 'Heat Advisory' },
    { magnitude: 1 },
  ];

  it('gives min/max for numbers and counts missing values', () => {
    expect(profileColumns(rows, ['magnitude']).magnitude).toEqual({ min: 1, max: 7, missing: 2 });
  });

  it('counts distinct numbers only when asked', () => {
    const numbers = [{ n: 1 }, { n: 1 }, { n: 2 }];
    expect(profileColumns(numbers, ['n']).n).toEqual({ min: 1, max: 2 });
    expect(profileColumns(numbers, ['n'], { distinct: true }).n).toEqual({
      min: 1,
      max: 2,
      distinct: 2,
    });
  });

  it('gives distinct values with their counts, most frequent first', () => {
    expect(profileColumns(rows, ['event']).event).toEqual({
      distinct: 3,
      top: { 'Flood Warning': 2, 'Wind Advisory': 1, 'Heat Advisory': 1 },
      missing: 1,
    });
  });

  it('keeps only the top values and cuts long ones', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ name: `${'x'.repeat(50)}${i}` }));
    const profile = profileColumns(many, ['name'], { top: 2, maxValueLength: 10 }).name;
    // Values are counted whole and cut only for display, where cut values that collide add up.
    expect(profile).toEqual({ distinct: 30, top: { 'xxxxxxxxx…': 2 } });
  });

  it('treats a column of mixed types as values, and a "__proto__" value as text', () => {
    const profile = profileColumns([{ v: 1 }, { v: 'a' }, { v: '__proto__' }], ['v']).v;
    expect(profile).toEqual({ distinct: 3, top: { '1': 1, a: 1, ['__proto__']: 1 } });
    expect(Object.getPrototypeOf(profile)).toBe(Object.prototype);
  });
});
