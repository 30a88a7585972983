import { describe, expect, it } from 'vitest';
import {
  LARGE_STRING_BYTES,
  LargeText,
  restoreLargeStrings,
  takeLargeStrings,
} from './large-strings.js';

/** The message read back from a line whose large strings were taken out. */
function restored(taken: ReturnType<typeof takeLargeStrings>, asBytes = false) {
  if (!taken) return undefined;
  const message = JSON.parse(taken.line);
  const kept = restoreLargeStrings(message, taken, asBytes);
  return { message, kept };
}

/** What parsing the whole line gives, and what taking the large strings out and back gives. */
function both(message: unknown) {
  const line = JSON.stringify(message);
  const taken = takeLargeStrings(Buffer.from(line));
  return {
    taken,
    whole: JSON.parse(line),
    read: restored(taken)?.message,
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
    expect(taken?.values).toHaveLength(2);
    expect(taken?.line.length).toBeLessThan(500);
    expect(read).toEqual(whole);
  });

  it('reads a line given with escaped non-ASCII (\\u escapes, surrogate pairs)', () => {
    const escaped = `{"id":1,"jsonrpc":"2.0","result":{"t":"\\u00e9\\ud83d\\ude00\\/${filler}"}}`;
    const taken = takeLargeStrings(Buffer.from(escaped));
    expect(restored(taken)?.message).toEqual(JSON.parse(escaped));
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

  it('keeps the first large text block as bytes when asked, every other value as a string', () => {
    const table = JSON.stringify([{ a: 'quote " é 😀 \n', b: [1, { c: null }] }]);
    const message = answer('small', `${table}${filler}`, `${filler}é`);
    const line = JSON.stringify({ ...message, result: { ...message.result, big: `${filler}ü` } });
    const whole = JSON.parse(line);
    const read = restored(takeLargeStrings(Buffer.from(line)), true);
    expect(read?.kept).toBe(true);
    const [small, first, second] = read?.message.result.content ?? [];
    expect(small.text).toBe('small');
    expect(first.text).toBeInstanceOf(LargeText);
    expect(first.text.decode()).toBe(whole.result.content[1].text);
    // Serialised, it is the text again: it cannot go out as anything else.
    expect(JSON.parse(JSON.stringify(read?.message))).toEqual(whole);
    expect(second.text).toBe(whole.result.content[2].text);
    expect(read?.message.result.big).toBe(whole.result.big);
    // Not a result's content block: strings, and the line's bytes are free.
    const other = `{"jsonrpc":"2.0","id":1,"result":{"text":"${filler}"}}`;
    expect(restored(takeLargeStrings(Buffer.from(other)), true)?.kept).toBe(false);
  });
});
