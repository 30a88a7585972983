import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../mcp-sdk.js';
import { block, opts, ROWS, text } from './__fixtures__/tool-results.js';
import { findTable } from './find-table.js';
import { describeBlocks, MAX_KEPT_TEXT } from './other-blocks.js';

describe('findTable: the blocks that are not the table', () => {
  it('finds the table in one block among several, keeping small notes after it', () => {
    const found = findTable(text('Showing 2 of 1,200.', ROWS, 'Execution time: 3 ms'), opts);
    expect(found).toMatchObject({ kind: 'table', rows: ROWS, source: 1 });
    expect(
      found.kind === 'table' && found.blocks.kept.map((b) => b.type === 'text' && b.text),
    ).toEqual(['Showing 2 of 1,200.', 'Execution time: 3 ms']);
  });

  it('takes structuredContent first and drops a text block that repeats it', () => {
    const result: CallToolResult = {
      content: [block(ROWS), block('2 rows')],
      structuredContent: { items: ROWS },
    };
    expect(findTable(result, opts)).toMatchObject({
      kind: 'table',
      source: 'structuredContent',
      pointer: '/items',
      blocks: { kept: [block('2 rows')], repeats: 1, dropped: [] },
    });
  });

  it('describes the blocks it drops: large text that is not the table, images', () => {
    const big = 'x'.repeat(MAX_KEPT_TEXT + 1);
    const result: CallToolResult = {
      content: [block(ROWS), block(big), { type: 'image', data: 'AAAA', mimeType: 'image/png' }],
    };
    const found = findTable(result, opts);
    expect(found.kind === 'table' && found.blocks.dropped).toEqual([
      { index: 1, type: 'text', chars: MAX_KEPT_TEXT + 1 },
      { index: 2, type: 'image', chars: 4 },
    ]);
    expect(describeBlocks(found.kind === 'table' ? found.blocks.dropped : [])).toBe(
      '2 content blocks: text (2,001 characters), image (4 characters)',
    );
  });
});
