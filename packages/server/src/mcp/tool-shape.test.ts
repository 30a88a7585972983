import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { shapeOf } from './tool-shape.js';

describe('shapeOf', () => {
  it('takes a shape as it is, and the shape of an object schema', () => {
    const shape = { area: z.string(), limit: z.number().optional() };
    expect(shapeOf(shape)).toBe(shape);
    expect(Object.keys(shapeOf(z.object(shape)))).toEqual(['area', 'limit']);
    expect(shapeOf(z.object(shape)).area).toBe(shape.area);
  });

  it('is empty for no parameters, and a parameter named _zod-like stays a parameter', () => {
    expect(shapeOf(undefined)).toEqual({});
    const odd = { shape: z.string(), _zodlike: z.number() };
    expect(shapeOf(odd)).toBe(odd);
  });
});
