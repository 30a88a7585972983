import { PROTOCOL, S2SPResultSchema } from '@s2sp/core';
import { readS2SPReceipt } from '@s2sp/core/receipt';
import { notesTable } from '@s2sp/test-utils';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { createS2SP } from '../runtime/s2sp.js';
import { plainTextTokens } from './plain-tokens.js';
import { estimateTokens, TOKEN_ESTIMATE_ERROR } from './token-estimate.js';

const rows = Array.from({ length: 40 }, (_, i) => ({
  id: `urn:alert:${i}`,
  event: i % 4 === 0 ? 'Heat Advisory' : 'Flood Watch',
  severity: i % 2 === 0 ? 'Moderate' : 'Severe',
  description: `Heat index values up to ${100 + i}. Stay hydrated and check on relatives and neighbors.`,
  areaDesc: 'Bexar; Travis; Williamson',
}));
const plainTokens = estimateTokens(JSON.stringify(rows));
const s2sp = createS2SP({ publicUrl: 'https://weather.example', logger: silentLogger });
const tokenizer = new Tiktoken(o200k);
const count = (value: string) => tokenizer.encode(value).length;

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

  it('is within ±10% of the o200k saving on repetitive notes, indented as an upstream answers them', async () => {
    // Before the one-token-words filter, a held-out table of repetitive English notes in pretty
    // JSON was receipted 13% high. The plain result is counted from the upstream's text, as the
    // proxy counts it.
    const cases = [
      { kind: 'everyday', indent: 2, domains: 'id,status' },
      { kind: 'formal', indent: 2, domains: 'id,status' },
      { kind: 'formal', indent: 4, domains: 'id,agent,status' },
      { kind: 'formal', indent: '\t', domains: 'id,status' },
      // Compact, the notes alone withheld: the saving is the prose of long words, nothing else.
      { kind: 'formal', indent: 0, domains: 'id,opened,agent,status' },
    ] as const;
    for (const { kind, indent, domains } of cases) {
      const notes = notesTable(kind);
      const upstream = JSON.stringify(notes, null, indent);
      const result = await s2sp.resourceResult(
        notes,
        { abstract_domains: domains },
        { plainTokens: plainTextTokens([upstream]) },
      );
      const saved = count(upstream) - count(text(result));
      const error = (readS2SPReceipt(result)?.tokens_saved ?? 0) / saved - 1;
      expect({ kind, indent, within: Math.abs(error) <= TOKEN_ESTIMATE_ERROR }).toEqual({
        kind,
        indent,
        within: true,
      });
    }
  }, 30_000);

  it('is absent from a plain result and from an error', async () => {
    expect(readS2SPReceipt(await s2sp.resourceResult(rows, {}))).toBeUndefined();
    const refused = await s2sp.resourceResult(rows, { abstract_domains: 'no_such_column' });
    expect(refused.isError).toBe(true);
    expect(readS2SPReceipt(refused)).toBeUndefined();
  });
});

/**
 * The plain result's exact estimate, and the receipt's with the stored rows (async) and without
 * (sync mode with a filter). Sync mode without one reads the rows' lengths from its text, and must
 * count to the token what serialising every row counts.
 */
