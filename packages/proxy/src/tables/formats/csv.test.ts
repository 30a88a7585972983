import { describe, expect, it } from 'vitest';
import { parseDelimited } from './csv.js';

const limits = { maxFields: 1_000 };

describe('parseDelimited', () => {
  it('reads quotes, doubled quotes, CRLF and line breaks inside quotes', () => {
    const text = 'id,name,note\r\n1,"Smith, J","said ""hi"""\r\n2,Lee,"two\r\nlines"\r\n3,,\n';
    expect(parseDelimited(text, ',', limits)).toEqual({
      ok: true,
      records: [
        ['id', 'name', 'note'],
        ['1', 'Smith, J', 'said "hi"'],
        ['2', 'Lee', 'two\r\nlines'],
        ['3', '', ''],
      ],
    });
  });

  it('reads TSV and skips blank lines; a quote inside a TSV field is text', () => {
    expect(parseDelimited('a\tb\n\n1\t2 "x"', '\t', limits)).toEqual({
      ok: true,
      records: [
        ['a', 'b'],
        ['1', '2 "x"'],
      ],
    });
  });

  it('refuses broken quoting and too many fields, naming the line', () => {
    expect(parseDelimited('a,b\n1,"open\n2,3', ',', limits)).toEqual({
      ok: false,
      reason: 'line 2 opens a quoted field that never closes',
    });
    expect(parseDelimited('a,b\n1,"x"y', ',', limits)).toMatchObject({
      ok: false,
      reason: /line 2 has text after/,
    });
    expect(parseDelimited('a,b\n1,x"y', ',', limits)).toMatchObject({
      ok: false,
      reason: /line 2 has a quote/,
    });
    expect(parseDelimited('a,b,c\n1,2,3', ',', { maxFields: 5 })).toMatchObject({
      ok: false,
      reason: /more than 5 fields/,
    });
  });

  it('keeps a ragged record as it is (the header check refuses it)', () => {
    expect(parseDelimited('a,b\n1,2,3', ',', limits)).toEqual({
      ok: true,
      records: [
        ['a', 'b'],
        ['1', '2', '3'],
      ],
    });
  });
});
