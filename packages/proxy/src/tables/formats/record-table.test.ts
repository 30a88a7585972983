import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Row } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { CATALOGUE_SAMPLE_ROWS } from '../column-catalogue.js';
import { findTable } from '../detect/find-table.js';
import { TEXT_FORMATS } from '../detect/text-formats.js';
import { delimitedSteps } from './csv.js';
import { runNow } from './parse-steps.js';

/** More rows than the catalogue samples, so most rows are read narrow. */
const N = 5_000;
const COLUMNS = ['id', 'city', 'zip', 'score', 'note'];
const full = Array.from({ length: N }, (_, i) => ({
  id: i,
  city: ['Austin', 'Boston', 'Chicago'][i % 3] as string,
  zip: `0${2100 + i}`,
  score: i / 4,
  note: i % 2 ? 'quote " and, comma' : 'é 😀',
}));
const cell = (v: unknown) =>
  typeof v === 'string' && /[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : String(v);
const esc = (v: unknown) => String(v).replaceAll('|', '\\|');
/** The same table in every text format. */
const TEXTS: Record<(typeof TEXT_FORMATS)[number], string> = {
  jsonl: full.map((row) => JSON.stringify(row)).join('\n'),
  csv: [COLUMNS.join(','), ...full.map((row) => Object.values(row).map(cell).join(','))].join(
    '\r\n',
  ),
  tsv: [COLUMNS.join('\t'), ...full.map((row) => Object.values(row).join('\t'))].join('\n'),
  markdown: `Rows:\n\n| ${COLUMNS.join(' | ')} |\n|${COLUMNS.map(() => '---').join('|')}|\n${full
    .map((row) => `| ${Object.values(row).map(esc).join(' | ')} |`)
    .join('\n')}\n`,
  html: `<table><tr>${COLUMNS.map((c) => `<th>${c}</th>`).join('')}</tr>${full
    .map(
      (row) =>
        `<tr>${Object.values(row)
          .map((v) => `<td>${String(v).replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</td>`)
          .join('')}</tr>`,
    )
    .join('')}</table>`,
};
const block = (text: string) => ({ content: [{ type: 'text' as const, text }] });
const opts = { maxTextLength: 100_000_000 };

/** The stored rows a found table's bytes or texts hold, parsed. */
function storedRows(found: ReturnType<typeof findTable>): Row[] {
  if (found.kind !== 'table') throw new Error(found.reason);
  const bytes = found.rowBytes?.();
  if (bytes) {
    const decoder = new TextDecoder();
    return Array.from(bytes.starts, (start, i) =>
      JSON.parse(decoder.decode(bytes.bytes.subarray(start, bytes.ends[i]))),
    );
  }
  return (found.rowTexts?.() ?? []).map((text) => JSON.parse(text));
}

describe('text tables read for an async split (keep): the JSON path’s compact form', () => {
  it('every format: only the kept values in the rows, every value in the rows’ JSON', () => {
    for (const format of TEXT_FORMATS) {
      const found = findTable(block(TEXTS[format]), { ...opts, keep: ['city'] });
      expect(found.kind, format).toBe('table');
      if (found.kind !== 'table') continue;
      expect(found.format).toBe(format);
      // Stored rows: every column of every row, typed as the plain read types them.
      const plain = findTable(block(TEXTS[format]), opts);
      expect(storedRows(found), format).toEqual(plain.kind === 'table' && plain.rows);
      expect(plain.kind === 'table' && (plain.rowBytes ?? plain.rowTexts)).toBeUndefined();
      // The rows: the kept column in each, the others only as the first row's nulls and in the
      // rows the catalogue samples — no row object holding the whole table.
      expect(Object.keys(found.rows[0] ?? {})).toEqual(COLUMNS);
      const narrow = found.rows.filter((row) => Object.keys(row).length === 1);
      expect(narrow.length, format).toBe(N - CATALOGUE_SAMPLE_ROWS);
      expect(found.rows.map((row) => row.city)).toEqual(full.map((row) => row.city));
    }
  });

  it('CSV: one buffer of row JSON with each row’s place, not a string per row', () => {
    const found = findTable(block(TEXTS.csv), { ...opts, keep: ['city'] });
    if (found.kind !== 'table') throw new Error(found.reason);
    const bytes = found.rowBytes?.();
    if (!bytes) throw new Error('no row bytes');
    expect(bytes.starts).toBeInstanceOf(Uint32Array);
    expect(bytes.starts.length).toBe(N);
    expect(bytes.bytes[bytes.starts[0] ?? 0]).toBe(123);
    // Resizable, so the store builds its encoding in place.
    expect((bytes.bytes.buffer as ArrayBuffer & { resizable?: boolean }).resizable).toBe(true);
    expect(found.rowTexts).toBeUndefined();
    // Handed over once.
    expect(found.rowBytes?.()).toBeUndefined();
  });

  it('CSV: a narrow row is an object the size of its kept values', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const n = 100_000;
    const lines = ['id,city,zip,__proto__'];
    for (let i = 0; i < n; i++) lines.push(`${i},${['Austin', 'Boston'][i % 2]},0${i},x${i % 3}`);
    let text: string | undefined = lines.join('\n');
    lines.length = 0;
    gc();
    const before = process.memoryUsage().heapUsed;
    const found = findTable(block(text), { ...opts, keep: ['city', '__proto__'] });
    text = undefined;
    gc();
    const perRow = (process.memoryUsage().heapUsed - before) / n;
    if (found.kind !== 'table') throw new Error(found.reason);
    const row = found.rows[n - 1] as Row;
    expect(Object.keys(row)).toEqual(['city', '__proto__']);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(row).toEqual(
      Object.fromEntries([
        ['city', 'Boston'],
        ['__proto__', 'x0'],
      ]),
    );
    // 40 bytes an object and 8 its slot in the rows array (was 56 and 8), with room to spare.
    expect(perRow).toBeLessThan(56);
  });

  it('a parser given a record callback keeps no records of its own', () => {
    const seen: string[][] = [];
    const parsed = runNow(
      delimitedSteps('a,b\n1,2\n3,4\n', ',', { maxFields: 100 }, (record) => seen.push(record)),
    );
    expect(parsed).toEqual({ ok: true, records: [] });
    expect(seen).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
    ]);
  });

  it('refuses a bad record with its line, as the plain read does', () => {
    const bad = 'a,b\n1,2\n3\n';
    expect(findTable(block(bad), { ...opts, keep: ['a'] })).toMatchObject({
      kind: 'not-table',
      reason: 'block 0: as CSV, line 3 has 1 cells, the header 2',
    });
    expect(findTable(block('{"a":1}\n[2]'), { ...opts, keep: ['a'] })).toMatchObject({
      kind: 'not-table',
      reason: /line 2 is not a JSON object/,
    });
  });
});
