import { generateRows, seededRandom } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { NWS_ALERT_FILES, nwsRows } from './__fixtures__/nws-alerts.js';
import { bodyRows, splitColumns } from './column-split.js';
import {
  plainResultTokens,
  plainTextTokens,
  RECEIPT_SAMPLE_CHARS,
  receiptSampleStride,
  syncRows,
} from './plain-tokens.js';
import { buildSyncResult, syncResultJson } from './s2sp-result.js';
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

/**
 * {@link syncRows} of `rows`, from the text of a sync result of every row, made as
 * `buildTableResult` makes it.
 */
function syncRowsOf(rows: readonly object[], domains?: readonly string[]) {
  const table = prepareTable(rows);
  const split = splitColumns(table, domains ?? table.columns.slice(0, 2));
  const json = syncResultJson(buildSyncResult(split, []));
  const body = JSON.stringify(bodyRows(table, split.bodyDomains));
  return syncRows(table, json.withBody(body), json.abstract, json.bodySpan(body.length));
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

describe("a sync result's rows (syncRows)", () => {
  /** Row `i`'s stored length as `serializeRow` lays it out, from the row's own JSON. */
  const storedLength = (row: unknown, i: number) => {
    const json = JSON.stringify(row);
    return json === '{}' ? `{"_row_id":${i}}`.length : `"_row_id":${i},`.length + json.length;
  };
  const hidden = { event: 'Hidden', note: 'shown' };
  Object.defineProperty(hidden, 'severity', { value: 'not JSON', enumerable: false });

  it("are each row's, exactly, from the two halves of its JSON", () => {
    const rows: object[] = [
      // Unicode of 2, 3 and 4 UTF-8 bytes, a lone surrogate, escapes, nulls and nested values.
      { event: 'été 😀 日本', severity: null, note: 'x\ud800', area: { codes: [1, 2] } },
      // No body columns; an undefined member.
      { severity: 'Minor', event: 'Wind', note: undefined },
      // No abstract columns.
      { note: 'Lake "Travis"\n', extra: { deep: [{ x: 'ß' }] } },
      {},
      { area: [], when: new Date(0), skip: () => 1, extra: null },
      JSON.parse('{"__proto__": {"a": 1}, "event": "proto"}'),
      // A member JSON leaves out is left out of the halves too.
      hidden,
      ...Array.from({ length: 12 }, (_, i) => ({ event: `e${i}`, note: 'n'.repeat(i) })),
    ];
    const read = syncRowsOf(rows, ['event', 'severity']);
    const lengths = read?.rowLengths;
    expect(Array.from(lengths ?? [])).toEqual(rows.map(storedLength));
    // And so the plain length: the rows, their commas and the brackets.
    let plain = rows.length + 1;
    for (const [i, length] of (lengths ?? []).entries())
      plain += length === `{"_row_id":${i}}`.length ? 2 : length - `"_row_id":${i},`.length;
    expect(plain).toBe(JSON.stringify(rows).length);
    // Each row's plain JSON: its members, the abstract's first, then the body's in the table's
    // column order; of the row's own length.
    const order = ['event', 'severity', ...prepareTable(rows).columns];
    for (const [i, row] of rows.entries()) {
      const json = JSON.stringify(row);
      const members = JSON.parse(json) as Record<string, unknown>;
      const reordered = JSON.stringify(
        Object.fromEntries(
          [...new Set(order)]
            .filter((key) => Object.hasOwn(members, key))
            .map((key) => [key, members[key]]),
        ),
      );
      expect(read?.plainRow(i)).toBe(reordered);
      expect(reordered.length).toBe(json.length);
    }
  });

  it('are not read from a table with a toJSON row or a nested object that starts with _row_id', () => {
    expect(
      syncRowsOf([{ event: 'a' }, { event: 'b', toJSON: () => ({ event: 'c' }) }]),
    ).toBeUndefined();
    // One JSON.stringify calls though it is no column.
    const quiet = Object.defineProperty({ event: 'a' }, 'toJSON', { value: () => 'x' });
    expect(syncRowsOf([{ event: 'b' }, quiet], ['event'])).toBeUndefined();
    const nested = [{ event: 'a', list: [{ _row_id: 1 }] }, { event: 'b' }];
    // In the body, and in the abstract.
    expect(syncRowsOf(nested, ['event'])).toBeUndefined();
    expect(syncRowsOf(nested, ['event', 'list'])).toBeUndefined();
    expect(
      syncRowsOf([{ event: 'a' }, { event: 'b', list: [{ x: 1, _row_id: 1 }] }], ['event'])
        ?.rowLengths,
    ).toEqual(
      Uint32Array.from([
        storedLength({ event: 'a' }, 0),
        storedLength({ event: 'b', list: [{ x: 1, _row_id: 1 }] }, 1),
      ]),
    );
    expect(syncRowsOf([])?.rowLengths).toEqual(new Uint32Array(0));
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
