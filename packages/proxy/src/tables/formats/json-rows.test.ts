import { describe, expect, it } from 'vitest';
import { arrayElementTexts } from './json-rows.js';

describe('arrayElementTexts', () => {
  it('slices each object of an array, strings with brackets and escapes included', () => {
    const rows = [{ a: '}]"\\', b: [1, { c: 2 }] }, {}, { d: 'x' }];
    const text = ` ${JSON.stringify(rows)}\n`;
    const texts = arrayElementTexts(text);
    expect(texts?.map((t) => JSON.parse(t))).toEqual(rows);
    expect(arrayElementTexts('[ ]')).toEqual([]);
    expect(arrayElementTexts('[{"a":1} , {"b":2}]')).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('gives up on anything else', () => {
    for (const text of ['{"a":1}', '[1]', '[{"a":1}', '[{"a":"1}]', '[{"a":1}x]', '[{"a":1},]']) {
      expect(arrayElementTexts(text), text).toBeUndefined();
    }
  });
});
