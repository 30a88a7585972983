import { generateToken, type RowWithId, type S2SPResult } from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createS2SP } from '../runtime/s2sp.js';
import { splitColumns } from './column-split.js';
import { encodePageCursor, pageStorageKey } from './page-cursor.js';
import { prepareTable } from './table.js';
import { abstractCosts, packRows, readPage, resultTokens, unpackRows } from './table-pages.js';
import { budgetTokens } from './token-estimate.js';

const rows = (n: number, wide = false) =>
  Array.from({ length: n }, (_, i) => ({
    id: i,
    event: i % 3 ? 'Flood Warning' : 'Wind Advisory',
    ...(wide && { note: `row ${i}: ${'a few more words in a longer cell '.repeat(3)}` }),
  }));

const head = (abstract: RowWithId[]): S2SPResult => ({
  total_rows: abstract.length,
  abstract_domains: ['event'],
  body_domains: ['id'],
  abstract,
  resource_url: 'https://d.example/s2sp/data/t',
  expires_at: '2026-11-27T10:00:00.000Z',
});

describe('resultTokens', () => {
  it("counts a result's tokens on its whole JSON while its rows cost up to a few budgets", () => {
    for (const [n, budget] of [
      [0, 100],
      [1, 100],
      [30, 1_000],
      [1_500, 8_000],
    ] as const) {
      const abstract = splitColumns(prepareTable(rows(n)), ['event', 'id']).abstract;
      const exact = budgetTokens(JSON.stringify(head(abstract.slice())));
      expect(resultTokens(head, abstract, abstractCosts(abstract), budget)).toBe(exact);
    }
  });

  it('decides within or over the budget as the whole JSON does, for any size', () => {
    for (const columns of [['event'], ['id'], ['event', 'id']]) {
      for (let n = 0; n <= 3_000; n += n < 50 ? 7 : 331) {
        const abstract = splitColumns(prepareTable(rows(n)), columns).abstract;
        const exact = budgetTokens(JSON.stringify(head(abstract.slice())));
        const costs = abstractCosts(abstract);
        for (const budget of [60, 200, 1_000, 8_000]) {
          expect(resultTokens(head, abstract, costs, budget) <= budget).toBe(exact <= budget);
        }
      }
    }
  });

  it('tells a large abstract over its budget from its first rows, within a few percent of the whole', () => {
    for (const wide of [false, true]) {
      const abstract = splitColumns(prepareTable(rows(50_000, wide)), [
        'event',
        'id',
        'note',
      ]).abstract;
      const exact = budgetTokens(JSON.stringify(head(abstract.slice())));
      const tokens = resultTokens(head, abstract, abstractCosts(abstract), 1_000);
      expect(tokens).toBeGreaterThan(1_000);
      expect(Math.abs(tokens / exact - 1)).toBeLessThan(0.05);
    }
  });

  it('costs each row as its JSON alone plus a comma', () => {
    const abstract = splitColumns(prepareTable(rows(5_000)), ['event']).abstract;
    const costs = abstractCosts(abstract);
    expect(costs).toHaveLength(5_000);
    expect([...costs]).toEqual(
      abstract.slice().map((row) => budgetTokens(JSON.stringify(row)) + 1),
    );
  });
});

describe('a large async result', () => {
  it('is paged without writing its whole abstract as one string', async () => {
    const s2sp = createS2SP({ logger: silentLogger, publicUrl: 'https://d.example' });
    const table = rows(60_000);
    const stringify = JSON.stringify;
    let longest = 0;
    JSON.stringify = ((...args: Parameters<typeof stringify>) => {
      const text = stringify(...args);
      if (typeof text === 'string') longest = Math.max(longest, text.length);
      return text;
    }) as typeof stringify;
    let result: Awaited<ReturnType<typeof s2sp.resourceResult>>;
    try {
      result = await s2sp.resourceResult(table, { abstract_domains: 'event' });
    } finally {
      JSON.stringify = stringify;
      await s2sp.close();
    }
    expect(result.isError).toBeFalsy();
    const page = result.structuredContent as unknown as S2SPResult;
    expect(page.next_cursor).toBeTypeOf('string');
    // The whole abstract is about 2 MB of JSON; the longest string written is a few pages' worth.
    const whole = stringify(table.map((row, i) => ({ _row_id: i, event: row.event })));
    expect(longest).toBeLessThan(whole.length / 10);
  });
});

describe('stored pages', () => {
  it('pack repeated abstract rows once each and unpack them equal, in order, _row_id first', () => {
    const page: RowWithId[] = [
      { _row_id: 7, event: 'Flood', severity: null },
      { _row_id: 9, event: 'Wind' },
      { _row_id: 12, event: 'Flood', severity: null },
      { _row_id: 13, severity: null, event: 'Flood' },
      { _row_id: 20, event: { nested: [1, 'x'] } },
    ];
    const packed = packRows(page);
    // Members in another order are another row: the order is what the model reads.
    expect(packed.values).toHaveLength(4);
    const back = unpackRows(JSON.parse(JSON.stringify(packed)));
    expect(back).toEqual(page);
    expect(back.map((row) => Object.keys(row))).toEqual(page.map((row) => Object.keys(row)));
    expect(unpackRows(packRows([]))).toEqual([]);
  });

  it('store a large abstract in a fraction of its rows JSON, and read back every row', async () => {
    const store = createMemoryStore();
    const s2sp = createS2SP({ store, logger: silentLogger, publicUrl: 'https://d.example' });
    const table = rows(30_000);
    const result = await s2sp.resourceResult(table, { abstract_domains: 'event' });
    const stats = await store.stats();
    const abstractJson = JSON.stringify(table.map((row, i) => ({ _row_id: i, event: row.event })));
    const tableJson = JSON.stringify(table.map((row, i) => ({ _row_id: i, ...row })));
    // The table's own rows, and the pages well under the abstract's JSON.
    expect(stats.bytes - tableJson.length).toBeLessThan(abstractJson.length / 3);
    let page = result.structuredContent as unknown as S2SPResult;
    const ids = page.abstract.map((row) => row._row_id);
    while (page.next_cursor) {
      const next = await s2sp.resourceResult([], { cursor: page.next_cursor });
      page = next.structuredContent as unknown as S2SPResult;
      expect(page.abstract.every((row) => row.event === table[row._row_id]?.event)).toBe(true);
      ids.push(...page.abstract.map((row) => row._row_id));
    }
    expect(ids).toEqual(table.map((_, i) => i));
    await s2sp.close();
  });

  it('read a page stored by an earlier version (rows as they were)', async () => {
    const store = createMemoryStore();
    const token = generateToken();
    const abstract = [{ _row_id: 3, event: 'Flood' }];
    const old = {
      head: { total_rows: 9, abstract_domains: ['event'], body_domains: [] },
      abstract,
      expires_at: '2026-11-27T10:00:00.000Z',
      more: false,
    };
    await store.put(
      await pageStorageKey(token, 1),
      { columns: [], rows: [JSON.stringify(old)] },
      { ttlMs: 60_000 },
    );
    const page = await readPage(encodePageCursor(token, 1), store, 'https://d.example');
    expect(page.abstract).toEqual(abstract);
    expect(page.next_cursor).toBeUndefined();
  });
});
