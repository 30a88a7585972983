import { PROTOCOL, S2SPResultSchema } from '@s2sp/core';
import { readS2SPReceipt } from '@s2sp/core/receipt';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createS2SP } from '../runtime/s2sp.js';
import { plainResultTokens, RECEIPT_EXACT_CHARS } from './savings-receipt.js';
import { prepareTable, serializeTable } from './table.js';
import { estimateTokens } from './token-estimate.js';

const rows = Array.from({ length: 40 }, (_, i) => ({
  id: `urn:alert:${i}`,
  event: i % 4 === 0 ? 'Heat Advisory' : 'Flood Watch',
  severity: i % 2 === 0 ? 'Moderate' : 'Severe',
  description: `Heat index values up to ${100 + i}. Stay hydrated and check on relatives and neighbors.`,
  areaDesc: 'Bexar; Travis; Williamson',
}));
const plainTokens = estimateTokens(JSON.stringify(rows));
const s2sp = createS2SP({ publicUrl: 'https://weather.example', logger: silentLogger });

function text(result: { content: { type: string; text?: string }[] }): string {
  return result.content[0]?.text ?? '';
}

describe('the savings receipt in _meta', () => {
  it('says what an async result withholds and estimates the tokens saved against the plain result', async () => {
    const result = await s2sp.resourceResult(rows, {
      abstract_domains: 'event,severity',
      filter: { event: 'Heat Advisory' },
    });
    const receipt = readS2SPReceipt(result);
    expect(receipt).toEqual({
      rows_withheld: 30,
      columns_withheld: 3,
      tokens_saved: plainTokens - estimateTokens(text(result)),
    });
    expect(receipt?.tokens_saved).toBeGreaterThan(0);
    // A reader that knows nothing of it (the Python reference) sees the §2 object unchanged.
    const read = S2SPResultSchema.parse(JSON.parse(text(result)));
    expect(Object.keys(read)).not.toContain('rows_withheld');
    expect(Object.keys(result._meta ?? {})).toEqual([PROTOCOL.receiptMeta]);
  });

  it('estimates a sync result by what the model reads: the object without its body', async () => {
    const result = await s2sp.resourceResult(rows, { abstract_domains: 'event', mode: 'sync' });
    const { body: _body, ...read } = S2SPResultSchema.parse(result.structuredContent);
    expect(readS2SPReceipt(result)).toEqual({
      rows_withheld: 0,
      columns_withheld: 4,
      tokens_saved: plainTokens - estimateTokens(JSON.stringify(read)),
    });
  });

  it('is absent from a plain result and from an error', async () => {
    expect(readS2SPReceipt(await s2sp.resourceResult(rows, {}))).toBeUndefined();
    const refused = await s2sp.resourceResult(rows, { abstract_domains: 'no_such_column' });
    expect(refused.isError).toBe(true);
    expect(readS2SPReceipt(refused)).toBeUndefined();
  });

  it('estimates the plain result exactly up to 1 MiB of JSON, and a larger one from its first rows', () => {
    const small = prepareTable([{}, ...rows, {}]);
    expect(plainResultTokens(small, serializeTable(small))).toBe(
      estimateTokens(JSON.stringify(small.rows)),
    );
    // Every fifth row empty: the plain length read from the stored rows must count `{}` right.
    const many = Array.from({ length: 15_000 }, (_, i) =>
      i % 5 === 0 ? {} : { ...rows[i % rows.length], seq: i },
    );
    const large = prepareTable(many);
    const plain = JSON.stringify(many);
    expect(plain.length).toBeGreaterThan(2 * RECEIPT_EXACT_CHARS);
    const estimate = plainResultTokens(large, serializeTable(large));
    expect(Math.abs(estimate / estimateTokens(plain) - 1)).toBeLessThan(0.005);
  });
});
