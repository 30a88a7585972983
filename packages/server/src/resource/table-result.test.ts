import { PROTOCOL, parseResourceUrl, S2SPResultSchema, tokenStorageKey } from '@s2sp/core';
import {
  type BodyStore,
  collectBytes,
  createMemoryStore,
  heldPieces,
  type StoredTable,
} from '@s2sp/core/store';
import { generateRows } from '@s2sp/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../logger.js';
import type { CallToolResult } from '../mcp-sdk.js';
import { createS2SP } from '../runtime/s2sp.js';
import { plainResultTokens } from './plain-tokens.js';
import type { RowBytes } from './row-bytes.js';
import { prepareTable, type RowJson } from './table.js';
import { budgetTokens, estimateTokens } from './token-estimate.js';

const TEXT = '[{"a":1,  "b":"x"},{},{"a":2,"b":"é😀"}]';
const STORED = '{"_row_id":0,"a":1,  "b":"x"},{"_row_id":1},{"_row_id":2,"a":2,"b":"é😀"}';
const encoder = new TextEncoder();

/**
 * `json` (a JSON array of flat objects) in a resizable buffer (as the proxy's line buffer is),
 * with its rows' ranges.
 */
function rowBytes(json = TEXT): RowBytes {
  const text = encoder.encode(json);
  const Resizable = ArrayBuffer as unknown as new (
    n: number,
    o: { maxByteLength: number },
  ) => ArrayBuffer;
  const bytes = new Uint8Array(new Resizable(text.length, { maxByteLength: 4 * text.length }));
  bytes.set(text);
  const starts: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === 123) starts.push(i);
    if (text[i] === 125) ends.push(i + 1);
  }
  return { bytes, starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
}

/** The memory store, keeping what each put was given: the tables a caller's path produced. */
function recordingStore(): { store: BodyStore; puts: StoredTable[] } {
  const memory = createMemoryStore();
  const puts: StoredTable[] = [];
  return {
    puts,
    store: {
      ...memory,
      put: (key, table, options) => {
        puts.push(table);
        return memory.put(key, table, options);
      },
    },
  };
}

/** The text of what a take of `result`'s entry hands over. */
async function takenText(store: BodyStore, result: CallToolResult): Promise<string> {
  const taken = await store.take(await storageKey(result));
  if (!taken) throw new Error('not stored');
  return new TextDecoder().decode(await collectBytes(taken.chunks));
}

async function storageKey(result: CallToolResult): Promise<string> {
  const { resource_url } = S2SPResultSchema.parse(result.structuredContent);
  const token = resource_url && parseResourceUrl(resource_url).token;
  if (!token) throw new Error(`no resource_url: ${JSON.stringify(result)}`);
  return tokenStorageKey(token);
}

/** The receipt's estimate of the plain result: the tokens saved plus those the model reads. */
function plainTokensOf(result: CallToolResult): number {
  const receipt = result._meta?.['s2sp/receipt'] as { tokens_saved: number };
  const [block] = result.content;
  return receipt.tokens_saved + estimateTokens(block?.type === 'text' ? block.text : '');
}

describe('resourceResult with the rows JSON (the proxy path)', () => {
  const rows = () => JSON.parse(TEXT) as Record<string, unknown>[];

  it('stores rows handed over as bytes in the very buffer handed in: no copy', async () => {
    const { store } = recordingStore();
    const s2sp = createS2SP({ store, logger: silentLogger, publicUrl: 'https://d.example' });
    const source = rowBytes();
    let handed = 0;
    const rowJson = (): RowJson | undefined => (handed++ === 0 ? { bytes: source } : undefined);
    const result = await s2sp.resourceResult(rows(), { abstract_domains: 'a' }, { rowJson });
    expect(handed).toBe(1);
    const taken = await store.take(await storageKey(result));
    const pieces = taken && heldPieces(taken.chunks);
    if (!pieces) throw new Error('not stored as pieces at hand');
    expect(pieces).toHaveLength(1);
    expect(pieces[0]?.buffer).toBe(source.bytes.buffer);
    expect(new TextDecoder().decode(pieces[0])).toBe(STORED);
    await s2sp.close();
  });

  it('stores rows handed over as texts from the texts, not stringified again', async () => {
    const { store, puts } = recordingStore();
    const s2sp = createS2SP({ store, logger: silentLogger, publicUrl: 'https://d.example' });
    const texts = ['{"a":1,  "b":"x"}', '{}', '{"a":2,"b":"é😀"}'];
    const result = await s2sp.resourceResult(
      rows(),
      { abstract_domains: 'a' },
      { rowJson: () => ({ texts }) },
    );
    // The spacing of the first text survives: the stored row is the text, with its id in front.
    expect(puts[0]?.encode).toBeTypeOf('function');
    expect(await takenText(store, result)).toBe(STORED);
    await s2sp.close();
  });

  it('never asks for the JSON when nothing is stored, and stores plainly without it', async () => {
    const { store, puts } = recordingStore();
    const s2sp = createS2SP({ store, logger: silentLogger, publicUrl: 'https://d.example' });
    let asked = 0;
    const rowJson = (): RowJson => {
      asked++;
      return { bytes: rowBytes() };
    };
    await s2sp.resourceResult(rows(), { abstract_domains: 'a', mode: 'sync' }, { rowJson });
    await s2sp.resourceResult(rows(), {}, { rowJson });
    expect(asked).toBe(0);
    const plain = await s2sp.resourceResult(rows(), { abstract_domains: 'a' });
    expect(puts.map((table) => table.encode)).toEqual([undefined]);
    expect(await takenText(store, plain)).toBe(STORED.replace('1,  "b"', '1,"b"'));
    await s2sp.close();
  });

  it("counts the stored bytes and the receipt's plain size without decoding every row", async () => {
    // 2 MB of rows, twice the part the receipt reads exactly: the rest is counted from lengths.
    const many = Array.from({ length: 20_000 }, (_, i) => ({
      id: i,
      event: i % 3 ? 'Flood Warning' : 'Wind Advisory ü',
      note: `row ${i} of a table of short rows, with a little text in it`,
    }));
    const text = JSON.stringify(many);
    const s2sp = createS2SP({ logger: silentLogger, publicUrl: 'https://d.example' });
    const plain = await s2sp.resourceResult(many, { abstract_domains: 'event' });
    const decode = vi.spyOn(TextDecoder.prototype, 'decode');
    try {
      const fromBytes = await s2sp.resourceResult(
        JSON.parse(text),
        { abstract_domains: 'event' },
        { rowJson: () => ({ bytes: rowBytes(text) }) },
      );
      // Only the rows of the receipt's exact part are read as strings (was: every row, twice).
      expect(decode.mock.calls.length).toBeGreaterThan(0);
      expect(decode.mock.calls.length).toBeLessThan(many.length * 0.6);
      // The same plain-result estimate either way (the texts differ by their random tokens).
      expect(plainTokensOf(fromBytes)).toBe(plainTokensOf(plain));
    } finally {
      decode.mockRestore();
      await s2sp.close();
    }
  });

  it('refuses bytes that do not describe the rows with invalid_rows', async () => {
    const s2sp = createS2SP({ logger: silentLogger, publicUrl: 'https://d.example' });
    const result = await s2sp.resourceResult(
      [{ a: 1 }],
      { abstract_domains: 'a' },
      { rowJson: () => ({ bytes: rowBytes() }) },
    );
    expect(result.isError).toBe(true);
    expect(result._meta?.['s2sp/error-code']).toBe('invalid_rows');
    await s2sp.close();
  });
});

describe('a sync-mode result', () => {
  // Unicode (2-, 3- and 4-byte UTF-8), nulls, nested values, a missing and an undefined column,
  // rows that list their keys in another order.
  const rows = (): Record<string, unknown>[] => [
    { event: 'Heat Advisory', severity: 'Minor', note: 'été 😀 日本', area: { codes: [1, 2] } },
    { severity: null, event: 'Wind Advisory', note: null, area: [] },
    { event: 'Heat Advisory', severity: 'Severe', note: undefined, extra: { deep: [{ x: 'ß' }] } },
    { event: 'Flood Warning', area: 'Lake "Travis"\n', severity: 'Moderate', note: '' },
  ];

  /**
   * The result as sync mode built it before it skipped work (every body row made, then the
   * abstract's kept; the text encoded to be measured): the same table, straight from PROTOCOL §2
   * and §7.9, for the fast path to match byte for byte.
   */
  function reference(filter?: { event: string }): CallToolResult {
    const table = rows();
    const kept = filter ? table.filter((row) => row.event === filter.event) : table;
    const ids = kept.map((row) => table.indexOf(row));
    const abstract = ids.map((i) => {
      const row = table[i] as Record<string, unknown>;
      return JSON.parse(JSON.stringify({ _row_id: i, event: row.event, severity: row.severity }));
    });
    // Body columns in the table's first-seen order, whatever a row's own order.
    const body = ids.map((i) => {
      const row = table[i] as Record<string, unknown>;
      return JSON.parse(
        JSON.stringify({ _row_id: i, note: row.note, area: row.area, extra: row.extra }),
      );
    });
    const read = {
      total_rows: table.length,
      abstract_domains: ['event', 'severity'],
      body_domains: ['note', 'area', 'extra'],
      abstract,
      ...(filter && { matched_rows: kept.length }),
    };
    const result = {
      total_rows: read.total_rows,
      abstract_domains: read.abstract_domains,
      body_domains: read.body_domains,
      abstract,
      body,
      ...(filter && { matched_rows: kept.length }),
    };
    return {
      content: [{ type: 'text', text: JSON.stringify(result) }],
      structuredContent: result,
      _meta: {
        's2sp/receipt': {
          rows_withheld: table.length - kept.length,
          columns_withheld: 3,
          tokens_saved:
            estimateTokens(JSON.stringify(table)) - estimateTokens(JSON.stringify(read)),
        },
      },
    };
  }

  const sync = async (
    options: { tokenBudget?: number; maxSyncBytes?: number },
    filter?: { event: string },
    meta?: Record<string, unknown>,
  ) => {
    const s2sp = createS2SP({
      publicUrl: 'http://127.0.0.1:3001',
      logger: silentLogger,
      ...options,
    });
    try {
      return await s2sp.resourceResult(
        rows(),
        { abstract_domains: 'event,severity', mode: 'sync', ...(filter && { filter }) },
        meta && { call: { _meta: meta } },
      );
    } finally {
      await s2sp.close();
    }
  };

  it('is byte for byte the PROTOCOL §2 object, its text and its receipt', async () => {
    for (const filter of [undefined, { event: 'Heat Advisory' }]) {
      const result = await sync({}, filter);
      expect(JSON.stringify(result)).toBe(JSON.stringify(reference(filter)));
    }
  });

  it('leaves the body out of the text for a host that reads structuredContent (§7.11)', async () => {
    for (const filter of [undefined, { event: 'Heat Advisory' }]) {
      const expected = reference(filter);
      const { body: _body, ...read } = expected.structuredContent as Record<string, unknown>;
      const result = await sync({}, filter, { [PROTOCOL.syncBodyMeta]: 'structured' });
      // The text is what the model reads; structuredContent and the receipt are as in §2.
      expect(JSON.stringify(result)).toBe(
        JSON.stringify({ ...expected, content: [{ type: 'text', text: JSON.stringify(read) }] }),
      );
    }
    // Any other value is ignored: the §2 result.
    for (const value of ['both', 'STRUCTURED', true]) {
      const result = await sync({}, undefined, { [PROTOCOL.syncBodyMeta]: value });
      expect(JSON.stringify(result)).toBe(JSON.stringify(reference()));
    }
  });

  it('refuses a declared sync result over maxSyncBytes as it refuses the §2 one', async () => {
    const bytes = encoder.encode(JSON.stringify(reference().structuredContent)).byteLength;
    const declared = { [PROTOCOL.syncBodyMeta]: 'structured' };
    expect((await sync({ maxSyncBytes: bytes }, undefined, declared)).isError).toBeUndefined();
    const refused = await sync({ maxSyncBytes: bytes - 1 }, undefined, declared);
    expect(refused._meta?.['s2sp/error-code']).toBe('payload_too_large');
  });

  it("counts a table over the receipt's bound as serialising every row counts it", async () => {
    // Past the bound the receipt reads a sample; its length and stride come from the text.
    const s2sp = createS2SP({
      publicUrl: 'http://127.0.0.1:3001',
      logger: silentLogger,
      tokenBudget: 50_000,
      maxSyncBytes: 8 * 1024 ** 2,
    });
    try {
      for (const table of [generateRows(200), generateRows(1_000).toReversed()]) {
        const result = await s2sp.resourceResult(table, {
          abstract_domains: 'event,severity',
          mode: 'sync',
        });
        expect(result.isError).toBeUndefined();
        const { body: _body, ...read } = result.structuredContent as Record<string, unknown>;
        const receipt = result._meta?.['s2sp/receipt'] as { tokens_saved: number };
        expect(receipt.tokens_saved + estimateTokens(JSON.stringify(read))).toBe(
          plainResultTokens(prepareTable(table)),
        );
        const [block] = result.content;
        expect(block?.type === 'text' && block.text).toBe(JSON.stringify(result.structuredContent));
      }
    } finally {
      await s2sp.close();
    }
  });

  it('refuses a value JSON cannot hold, in the abstract or the body, with invalid_rows', async () => {
    const s2sp = createS2SP({ publicUrl: 'http://127.0.0.1:3001', logger: silentLogger });
    try {
      for (const row of [
        { event: 1n, note: 'x' },
        { event: 'x', note: 1n },
      ]) {
        const refused = await s2sp.resourceResult([row], {
          abstract_domains: 'event',
          mode: 'sync',
        });
        expect(refused._meta?.['s2sp/error-code']).toBe('invalid_rows');
      }
    } finally {
      await s2sp.close();
    }
  });

  it('is refused over the token budget at the same count as the whole result without its body', async () => {
    const structuredContent = reference().structuredContent as Record<string, unknown>;
    const tokens = budgetTokens(JSON.stringify({ ...structuredContent, body: [] }));
    expect((await sync({ tokenBudget: tokens })).isError).toBeUndefined();
    const refused = await sync({ tokenBudget: tokens - 1 });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.['s2sp/error-code']).toBe('payload_too_large');
  });

  it('makes no body rows when it is refused over the budget', async () => {
    let reads = 0;
    const row = {
      event: 'Heat Advisory',
      get note() {
        reads++;
        return 'x';
      },
    };
    const s2sp = createS2SP({
      publicUrl: 'http://127.0.0.1:3001',
      logger: silentLogger,
      tokenBudget: 1,
    });
    try {
      const refused = await s2sp.resourceResult([row], { abstract_domains: 'event', mode: 'sync' });
      expect(refused._meta?.['s2sp/error-code']).toBe('payload_too_large');
      // Once, when the table's columns were collected; not again for a body row.
      expect(reads).toBe(1);
    } finally {
      await s2sp.close();
    }
  });

  it('is refused over maxSyncBytes by its UTF-8 bytes, not its length', async () => {
    const [block] = reference().content;
    const text = block?.type === 'text' ? block.text : '';
    const bytes = encoder.encode(text).byteLength;
    expect(bytes).toBeGreaterThan(text.length);
    expect((await sync({ maxSyncBytes: bytes })).isError).toBeUndefined();
    const refused = await sync({ maxSyncBytes: bytes - 1 });
    expect(refused._meta?.['s2sp/error-code']).toBe('payload_too_large');
  });
});
