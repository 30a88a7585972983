import { describe, expect, it } from 'vitest';
import { geometryContains } from './geometry.js';

// A 2x2 degree square with a 1x1 hole in the middle; positions are [longitude, latitude].
const square = [
  [
    [-99, 28],
    [-97, 28],
    [-97, 30],
    [-99, 30],
    [-99, 28],
  ],
];
const hole = [
  [-98.5, 28.5],
  [-97.5, 28.5],
  [-97.5, 29.5],
  [-98.5, 29.5],
  [-98.5, 28.5],
];

describe('geometryContains', () => {
  it('finds a point inside a polygon and not outside it', () => {
    const polygon = { type: 'Polygon', coordinates: square };
    expect(geometryContains(polygon, 29, -98)).toBe(true);
    expect(geometryContains(polygon, 31, -98)).toBe(false);
    expect(geometryContains(polygon, 29, -96)).toBe(false);
  });

  it('treats later rings as holes', () => {
    const polygon = { type: 'Polygon', coordinates: [...square, hole] };
    expect(geometryContains(polygon, 29, -98)).toBe(false);
    expect(geometryContains(polygon, 28.2, -98.8)).toBe(true);
  });

  it('handles MultiPolygon', () => {
    const far = [
      [
        [10, 10],
        [11, 10],
        [11, 11],
        [10, 10],
      ],
    ];
    const multi = { type: 'MultiPolygon', coordinates: [far, square] };
    expect(geometryContains(multi, 29, -98)).toBe(true);
    expect(geometryContains(multi, 0, 0)).toBe(false);
  });

  it('contains nothing for null, other types or malformed input', () => {
    for (const geometry of [
      null,
      undefined,
      'Polygon',
      { type: 'Point', coordinates: [-98, 29] },
      { type: 'Polygon', coordinates: [] },
      { type: 'Polygon', coordinates: [[['a', 'b']]] },
      { type: 'MultiPolygon', coordinates: 'x' },
    ]) {
      expect(geometryContains(geometry, 29, -98)).toBe(false);
    }
  });
});
