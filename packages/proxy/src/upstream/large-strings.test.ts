import { describe, expect, it } from 'vitest';
import { LARGE_STRING_BYTES, putLargeStrings, takeLargeStrings } from './large-strings.js';

/** What parsing the whole line gives, and what taking the large strings out and back gives. */
function both(message: unknown) {
  const line = JSON.stringify(message);
  const taken = takeLargeStrings(Buffer.from(line));
  return {
    taken,
    whole: JSON.parse(line),
    read: taken && putLargeStrings(JSON.parse(taken.line), taken.strings),
  };
}

const filler = 'x'.repeat(LARGE_STRING_BYTES);
const answer = (...texts: string[]) => ({
  jsonrpc: '2.0',
  id: 3,
  result: { content: texts.map((text) => ({ type: 'text', text })) },
});

describe('takeLargeStrings', () => {
  it('reads large string values exactly as JSON.parse does, escapes and UTF-8 included', () => {
    const table = JSON.stringify([{ a: 'quote " slash \\ / tab \t nl \n é 😀 \u0001 \u2028' }]);
    const { taken, whole, read } = both(answer(`${table}${filler}`, 'small', `${filler}é`));
    expect(taken?.strings).toHaveLength(2);
    expect(taken?.line.length).toBeLessThan(500);
    expect(read).toEqual(whole);
  });

  it('reads a line given with escaped non-ASCII (\\u escapes, surrogate pairs)', () => {
    const escaped = `{"id":1,"jsonrpc":"2.0","result":{"t":"\\u00e9\\ud83d\\ude00\\/${filler}"}}`;
    const taken = takeLargeStrings(Buffer.from(escaped));
    expect(taken && putLargeStrings(JSON.parse(taken.line), taken.strings)).toEqual(
      JSON.parse(escaped),
    );
  });

  it('leaves in the line what JSON.parse must judge: lone surrogates, control characters, bad bytes, names', () => {
    const lone = `{"t":"\\ud83d${filler}"}`;
    const control = `{"t":"\u0001${filler}"}`;
    const badEscape = `{"t":"\\x${filler}"}`;
    const name = `{"${filler}":1}`;
    for (const text of [lone, control, badEscape, name]) {
      const bytes = Buffer.from(text);
      expect(takeLargeStrings(bytes), text.slice(0, 12)).toBeUndefined();
      expect(bytes.toString()).toBe(text);
    }
    const invalid = Buffer.concat([
      Buffer.from('{"t":"'),
      Buffer.from([0xff]),
      Buffer.from(`${filler}"}`),
    ]);
    expect(takeLargeStrings(invalid)).toBeUndefined();
  });

  it('takes nothing from a short line, and an upstream cannot plant a placeholder', () => {
    expect(takeLargeStrings(Buffer.from(JSON.stringify(answer('a'))))).toBeUndefined();
    const { read } = both(answer('s2sp-large-string:guess:0', filler));
    expect((read as ReturnType<typeof answer>).result.content[0]?.text).toBe(
      's2sp-large-string:guess:0',
    );
  });
});
