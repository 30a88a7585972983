import { describe, expect, it } from 'vitest';
import { arrayElementRanges, arrayElementTexts } from './json-rows.js';

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

describe('arrayElementRanges', () => {
  const ranges = (text: string) => {
    const bytes = Buffer.from(text);
    const found = arrayElementRanges(bytes);
    return (
      found &&
      Array.from(found.starts, (start, i) => bytes.subarray(start, found.ends[i]).toString('utf8'))
    );
  };

  it('finds each object of an array in its bytes: nested values, escapes and UTF-8 included', () => {
    const rows = [{ a: '}]"\\{', b: [1, { c: [2, '"'] }] }, {}, { d: 'é 😀 \u2028', e: null }];
    const text = ` ${JSON.stringify(rows)}\n`;
    expect(ranges(text)?.map((t) => JSON.parse(t))).toEqual(rows);
    expect(ranges('[ ]')).toEqual([]);
    expect(ranges('[]')).toEqual([]);
    expect(ranges('[{"a":1} , {"b":2}]')).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('gives up on anything that is not an array of objects, as arrayElementTexts does', () => {
    for (const text of [
      '{"a":1}',
      '[1]',
      '[true]',
      '[null]',
      '["a"]',
      '[{"a":1},2]',
      '[{"a":1}',
      '[{"a":"1}]',
      '[{"a":1}x]',
      '[{"a":1},]',
      '[{"a":1}] x',
      '[ ] x',
      '',
    ]) {
      expect(ranges(text), text).toBeUndefined();
      expect(arrayElementTexts(text), text).toBeUndefined();
    }
  });
});
