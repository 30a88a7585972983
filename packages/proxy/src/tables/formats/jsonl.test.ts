import { describe, expect, it } from 'vitest';
import { parseJsonLines } from './jsonl.js';

describe('parseJsonLines', () => {
  it('reads one object per line, skipping blank lines and CRLF', () => {
    expect(parseJsonLines('{"a":1}\r\n\n{"a":2,"b":"x"}\n', { maxRows: 10 })).toEqual({
      ok: true,
      rows: [{ a: 1 }, { a: 2, b: 'x' }],
    });
  });

  it('names the first bad line', () => {
    expect(parseJsonLines('{"a":1}\n{"a":\n{"a":3}', { maxRows: 10 })).toEqual({
      ok: false,
      reason: 'line 2 is not valid JSON',
    });
    expect(parseJsonLines('{"a":1}\n[1]', { maxRows: 10 })).toEqual({
      ok: false,
      reason: 'line 2 is not a JSON object',
    });
    expect(parseJsonLines('{"a":1}\n{"a":2}', { maxRows: 1 })).toMatchObject({ ok: false });
  });
});
