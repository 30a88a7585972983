import { generateRows, seededRandom } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { NWS_ALERT_FILES, nwsRows } from './__fixtures__/nws-alerts.js';
import { syncRowsOf } from './__fixtures__/sync-rows.js';
import {
  plainResultTokens,
  plainTextTokens,
  RECEIPT_SAMPLE_CHARS,
  receiptSampleStride,
} from './plain-tokens.js';
import { prepareTable, serializeTable } from './table.js';
import { estimateTokens } from './token-estimate.js';

// Short rows: 300 of them stay within the exact bound.
const rows = generateRows(40).map(({ id, event, severity, onset }) => ({
  id,
  event,
  severity,
  onset,
}));

/**
 * The plain result's exact estimate and the receipt's: from the stored rows (async), from the
 * row objects (sync mode with a filter), and from a sync result's text (sync mode).
 */
function counts(rows: Record<string, unknown>[]) {
  const table = prepareTable(rows);
  const fromText = syncRowsOf(rows);
  expect(fromText).toBeDefined();
  return {
    exact: estimateTokens(JSON.stringify(rows)),
    async: plainResultTokens(table, serializeTable(table)),
    sync: plainResultTokens(table),
    text: plainResultTokens(table, fromText),
  };
}

/** The relative error of `estimate` against `exact`. */
const error = (estimate: number, exact: number) => Math.abs(estimate / exact - 1);

/** The rule before the spread sample: the first rows up to `chars`, scaled by length. */
function firstRowsTokens(rows: Record<string, unknown>[], chars: number): number {
  const texts: string[] = [];
  for (let length = 1; texts.length < rows.length && length < chars; ) {
    texts.push(JSON.stringify(rows[texts.length]));
    length += (texts.at(-1) as string).length + 1;
  }
  const sample = `[${texts.join(',')}]`;
  return Math.round((estimateTokens(sample) * JSON.stringify(rows).length) / sample.length);
}

const byLength = (a: unknown, b: unknown) => JSON.stringify(a).length - JSON.stringify(b).length;
const nwsAll = NWS_ALERT_FILES.flatMap((name) => nwsRows(name));

describe('the plain result count (plainResultTokens)', () => {
  it('is exact, to the token, for a table within the bound, from the stored rows, the sync text and the rows', () => {
    const tables = [
      [],
      [{}],
      [{}, ...rows, {}],
      // Every fifth row empty: the plain length read from the stored rows must count `{}` right.
      Array.from({ length: 300 }, (_, i) => (i % 5 === 0 ? {} : { ...rows[i % rows.length], i })),
      ...NWS_ALERT_FILES.map((name) => nwsRows(name)),
    ];
    for (const table of tables) {
      expect(JSON.stringify(table).length).toBeLessThanOrEqual(RECEIPT_SAMPLE_CHARS);
      const { exact, async, sync, text } = counts(table);
      expect([async, sync, text]).toEqual([exact, exact, exact]);
    }
    // A row whose toJSON returns nothing is `null` in the plain result (sync mode serialises
    // the rows here; async mode's store cannot hold such a row).
    const odd = [{ toJSON: () => undefined }, ...rows];
    expect(plainResultTokens(prepareTable(odd))).toBe(estimateTokens(JSON.stringify(odd)));
  });

  it.each([200, 1_000, 10_000])(
    'is within 1% on the bench table of %i rows, reading about the bound of it',
    (count) => {
      const table = generateRows(count);
      expect(JSON.stringify(table).length).toBeGreaterThan(RECEIPT_SAMPLE_CHARS);
      const { exact, async, sync, text } = counts(table);
      expect(error(async, exact)).toBeLessThan(0.01);
      expect(error(sync, exact)).toBeLessThan(0.01);
      expect(error(text, exact)).toBeLessThan(0.01);
      // A sample, not the table.
      expect(receiptSampleStride(count, (i) => JSON.stringify(table[i]).length)).toBeGreaterThan(1);
    },
  );

  it('is within 1% on a table sorted by row length, ascending and descending', () => {
    const table = generateRows(1_000);
    for (const sorted of [table.toSorted(byLength), table.toSorted(byLength).reverse()]) {
      const { exact, async, sync, text } = counts(sorted);
      expect(error(async, exact)).toBeLessThan(0.01);
      expect(error(sync, exact)).toBeLessThan(0.01);
      expect(error(text, exact)).toBeLessThan(0.01);
    }
  });

  it('is within 1% on short rows then long ones, which the first rows misread', () => {
    // Over 1 MiB of short, number-dense rows before prose-heavy ones: the first rows (the rule
    // before, at 1 MiB or at the bound) see only the short ones.
    const short = Array.from({ length: 40_000 }, (_, i) => ({
      id: i,
      ugc: `TXZ${i % 300}`,
      n: i * 7,
    }));
    const table = [...short, ...generateRows(1_500)];
    const { exact, async, sync, text } = counts(table);
    expect(error(async, exact)).toBeLessThan(0.01);
    expect(error(sync, exact)).toBeLessThan(0.01);
    expect(error(text, exact)).toBeLessThan(0.01);
    expect(error(firstRowsTokens(table, 1 << 20), exact)).toBeGreaterThan(0.1);
    expect(error(firstRowsTokens(table, RECEIPT_SAMPLE_CHARS), exact)).toBeGreaterThan(0.1);
  });

  it('is within 2% on rows that differ widely (NWS alerts), sync mode scaled by length too', () => {
    // 29 alerts of 1.8 to 7.7 KB, at 2.1 to 3.5 characters a token, repeated past the bound: a
    // sample of a few dozen of them. Scaled by row count, sync mode was 9% off on such rows.
    const repeated = [...nwsAll, ...nwsAll, ...nwsAll];
    expect(JSON.stringify(repeated).length).toBeGreaterThan(RECEIPT_SAMPLE_CHARS);
    for (const table of [repeated, repeated.toSorted(byLength)]) {
      const { exact, async, sync, text } = counts(table);
      expect(error(async, exact)).toBeLessThan(0.02);
      expect(error(sync, exact)).toBeLessThan(0.02);
      expect(sync).toBe(async);
      // The same rows sampled, their columns reordered: a nested value's closing marks may join
      // its neighbour's differently (0.05% apart, sorted).
      expect(error(text, exact)).toBeLessThan(0.02);
      expect(error(text, async)).toBeLessThan(0.002);
    }
  });
});

describe('receiptSampleStride', () => {
  it('is the smallest power of two whose rows from row 0 are within the bound', () => {
    const random = seededRandom(7);
    for (let run = 0; run < 200; run++) {
      const lengths = Array.from({ length: Math.floor(random() * 3_000) }, () =>
        Math.floor(random() * random() * 5_000),
      );
      const chars = (stride: number) => {
        let sum = 1;
        for (let i = 0; i < lengths.length; i += stride) sum += (lengths[i] as number) + 1;
        return sum;
      };
      let expected = 1;
      while (chars(expected) > RECEIPT_SAMPLE_CHARS && expected < lengths.length) expected *= 2;
      expect(receiptSampleStride(lengths.length, (i) => lengths[i] as number)).toBe(expected);
    }
  });

  it('stops at one row when the first is over the bound', () => {
    expect(receiptSampleStride(5, () => 2 * RECEIPT_SAMPLE_CHARS)).toBe(8);
    expect(receiptSampleStride(1, () => 2 * RECEIPT_SAMPLE_CHARS)).toBe(1);
  });
});

describe('the plain text count (plainTextTokens)', () => {
  const csv = (table: Record<string, unknown>[]) =>
    table
      .map((row) =>
        Object.values(row)
          .map((value) => JSON.stringify(value))
          .join(','),
      )
      .join('\n');

  it('is exact, to the token, for a text within the bound, as a string or as UTF-8', () => {
    const text = csv(nwsRows('alerts-active-TX-2026-09-13.json')).slice(0, RECEIPT_SAMPLE_CHARS);
    expect(plainTextTokens([text])).toBe(estimateTokens(text));
    expect(plainTextTokens(['', text, new TextEncoder().encode('Überschwemmung')])).toBe(
      estimateTokens(text) + estimateTokens('Überschwemmung'),
    );
  });

  it('is within 1% on CSV, JSON and short lines then long ones, from slices spread over the text', () => {
    const short = Array.from({ length: 40_000 }, (_, i) => ({ id: i, ugc: `TXZ${i % 300}` }));
    const long = generateRows(1_500);
    const mixed = csv([...short, ...long]);
    for (const text of [csv(short), csv(long), JSON.stringify(long), mixed]) {
      expect(text.length).toBeGreaterThan(4 * RECEIPT_SAMPLE_CHARS);
      expect(error(plainTextTokens([text]), estimateTokens(text))).toBeLessThan(0.01);
    }
    // Its first part alone (the rule before) reads only the short lines.
    const first = mixed.slice(0, RECEIPT_SAMPLE_CHARS);
    const firstPart = (estimateTokens(first) * mixed.length) / first.length;
    expect(error(firstPart, estimateTokens(mixed))).toBeGreaterThan(0.1);
  });

  it('reads UTF-8 without splitting a character', () => {
    const text = 'Überschwemmung in der Flussniederung, Straßen gesperrt. 🌊 '.repeat(5_000);
    const bytes = new TextEncoder().encode(text);
    expect(bytes.byteLength).toBeGreaterThan(RECEIPT_SAMPLE_CHARS);
    const exact = estimateTokens(text);
    expect(error(plainTextTokens([bytes]), exact)).toBeLessThan(0.01);
    expect(error(plainTextTokens([text]), exact)).toBeLessThan(0.01);
  });
});
