import { describe, expect, it } from 'vitest';
import { S2SPError } from './errors.js';
import { parseJsonText } from './json.js';

describe('parseJsonText', () => {
  const failure = (reason: string) => new S2SPError('invalid_request', `Not JSON (${reason}).`);

  it('parses JSON text whichever contract the caller chose', () => {
    expect(parseJsonText('{"a":[1,null]}')).toEqual({ a: [1, null] });
    expect(parseJsonText('null', failure)).toBeNull();
    expect(parseJsonText(' "x" ')).toBe('x');
  });

  it("throws the caller's error, with the parse error as its cause, when given one", () => {
    let thrown: unknown;
    try {
      parseJsonText('[1', failure);
    } catch (error) {
      thrown = error;
    }
    expect(S2SPError.codeOf(thrown)).toBe('invalid_request');
    expect((thrown as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it('answers undefined for text that is not JSON when given no failure', () => {
    for (const text of ['[1', '', 'ddi://abc', '{"a":}', 'undefined'])
      expect(parseJsonText(text), text).toBeUndefined();
  });
});
