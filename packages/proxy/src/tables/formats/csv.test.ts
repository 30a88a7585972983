import { describe, expect, it } from 'vitest';
import { delimitedSteps, PIECE_BYTES, parseDelimited, pieceEnd } from './csv.js';
import { runNow } from './parse-steps.js';

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

describe('parseDelimited from UTF-8 bytes, a piece at a time', () => {
  const utf8 = (text: string) => new TextEncoder().encode(text);
  // Records that cross many piece boundaries: quoted fields with delimiters, doubled quotes and
  // line breaks (LF, CRLF, CR) inside them, multi-byte characters, blank lines, every line ending.
  const endings = ['\n', '\r\n', '\r'];
  const cell = (i: number) =>
    i % 7 === 0
      ? `"Smith, ${i}\r\nsaid ""hi"" — ünï ${'x'.repeat(i % 50)}\nend"`
      : i % 5 === 0
        ? `"${'é'.repeat(i % 300)}"`
        : `v${i}🌧`;
  const lines = Array.from({ length: 6_000 }, (_, i) =>
    [i, cell(i), cell(i + 1), i % 11 === 0 ? '' : cell(i + 2)].join(','),
  );
  const csv = `id,a,b,c\n${lines.map((line, i) => `${line}${endings[i % 3]}${i % 13 === 0 ? '\n' : ''}`).join('')}`;

  it('reads the same records as from the string, across many pieces', () => {
    expect(utf8(csv).length).toBeGreaterThan(PIECE_BYTES * 8);
    const fromText = parseDelimited(csv, ',', { maxFields: 100_000 });
    expect(fromText.ok).toBe(true);
    expect(runNow(delimitedSteps(utf8(csv), ',', { maxFields: 100_000 }))).toEqual(fromText);
  });

  it('reads a TSV quote inside a field as text at a piece boundary', () => {
    const rows = Array.from(
      { length: 10_000 },
      (_, i) => `${i}\t5" screen ${'x'.repeat(i % 17)}\t"q\t${i}\nnext"`,
    );
    const tsv = `n\tsize\tnote\n${rows.join('\n')}\n`;
    const parsed = runNow(delimitedSteps(utf8(tsv), '\t', { maxFields: 100_000 }));
    expect(parsed).toEqual(parseDelimited(tsv, '\t', { maxFields: 100_000 }));
    expect(parsed.ok && parsed.records[2_001]).toEqual([
      '2000',
      `5" screen ${'x'.repeat(2000 % 17)}`,
      'q\t2000\nnext',
    ]);
  });

  it('names the same line for broken quoting and counts fields over every piece', () => {
    const broken = `${csv}9,"open\n10,x\n`;
    const reason = parseDelimited(broken, ',', { maxFields: 100_000 });
    expect(reason.ok).toBe(false);
    expect(runNow(delimitedSteps(utf8(broken), ',', { maxFields: 100_000 }))).toEqual(reason);
    expect(runNow(delimitedSteps(utf8(csv), ',', { maxFields: 20_000 }))).toEqual({
      ok: false,
      reason: 'it has more than 20,000 fields',
    });
  });

  it('ends a piece only after a line break outside quotes, never between CR and LF', () => {
    const bytes = utf8(csv);
    const sep = ','.charCodeAt(0);
    let pieces = 0;
    for (let from = 0; from < bytes.length; pieces++) {
      const to = pieceEnd(bytes, from, sep);
      expect(to).toBeGreaterThan(from);
      if (to < bytes.length) {
        expect([10, 13]).toContain(bytes[to - 1]);
        expect(bytes[to - 1] === 13 && bytes[to] === 10).toBe(false);
        // Outside quotes: an even number of quotes so far.
        expect(bytes.subarray(0, to).filter((b) => b === 34).length % 2).toBe(0);
      }
      from = to;
    }
    expect(pieces).toBeGreaterThan(8);
  });
});
