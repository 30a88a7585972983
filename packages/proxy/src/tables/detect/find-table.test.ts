import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../mcp-sdk.js';
import { opts, REAL, ROWS, text } from './__fixtures__/tool-results.js';
import { findTable } from './find-table.js';

describe('findTable: JSON first, then the text formats', () => {
  it('prefers a JSON table in a later block over CSV-like prose in an earlier one', () => {
    expect(findTable(text('took 3 ms, 2 rows\nnext, page', ROWS), opts)).toMatchObject({
      format: 'json',
      source: 1,
    });
  });
});

describe('findTable: not a table', () => {
  it('says why, and what the blocks were', () => {
    const cases: [CallToolResult, RegExp][] = [
      [{ content: [{ type: 'text', text: '[1]' }], isError: true }, /error/],
      [text('hello'), /holds no table/],
      [text('[{"a":'), /not valid JSON/],
      [{ content: [] }, /no content blocks/],
      [{ content: [{ type: 'image', data: '', mimeType: 'image/png' }] }, /holds no table/],
    ];
    for (const [result, reason] of cases) {
      const found = findTable(result, opts);
      expect(found.kind).toBe('not-table');
      expect(found.kind === 'not-table' && found.reason).toMatch(reason);
    }
    expect(findTable(text('hello', 'x'.repeat(10)), opts)).toMatchObject({
      blocks: [
        { index: 0, type: 'text', chars: 5 },
        { index: 1, type: 'text', chars: 10 },
      ],
    });
    expect(findTable(text([{ a: 'x'.repeat(100) }]), { maxTextLength: 50 })).toMatchObject({
      kind: 'not-table',
      reason: /more than the 50/,
    });
  });
});

describe('findTable: a JSON document after prose in the same block', () => {
  it('reads the rows after the prose (@henkey/postgres-mcp-server) and keeps the prose', () => {
    expect(findTable(REAL.proseThenJson(ROWS), opts)).toMatchObject({
      kind: 'table',
      format: 'json',
      source: 0,
      rows: ROWS,
      blocks: {
        kept: [
          { type: 'text', text: 'Query executed successfully. Retrieved 2 rows.\n\nResults:' },
        ],
      },
    });
  });

  it('does not take a brace in prose for a table, nor complain of its JSON', () => {
    expect(findTable(text('Use it like this:\n{ not json }'), opts)).toMatchObject({
      kind: 'not-table',
      reason: /holds no table/,
    });
  });
});
