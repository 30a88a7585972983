import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../mcp-sdk.js';
import { LargeText } from '../../upstream/large-strings.js';
import { opts, ROWS, text } from './__fixtures__/tool-results.js';
import { releaseTexts } from './block-text.js';
import { findTable } from './find-table.js';

describe('releaseTexts', () => {
  it('empties the texts of a read table but those returned beside the abstract', () => {
    const result = text('Showing 2 of 1,200.', ROWS, 'Execution time: 3 ms');
    const found = findTable(result, opts);
    if (found.kind !== 'table') throw new Error('no table');
    releaseTexts(result, found.blocks.kept);
    expect(result.content.map((b) => b.type === 'text' && b.text)).toEqual([
      'Showing 2 of 1,200.',
      '',
      'Execution time: 3 ms',
    ]);
    // The kept blocks, which the model still gets, are untouched.
    expect(found.blocks.kept.map((b) => b.type === 'text' && b.text)).toEqual([
      'Showing 2 of 1,200.',
      'Execution time: 3 ms',
    ]);
    // The rows were parsed before: they keep their values.
    expect(found.rows).toEqual(ROWS);
  });

  it('lets go of a text kept as bytes too, and leaves other blocks as they are', () => {
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
    const result = {
      content: [{ type: 'text', text: new LargeText(new TextEncoder().encode('[]')) }, image],
    } as unknown as CallToolResult;
    releaseTexts(result, []);
    expect(result.content).toEqual([{ type: 'text', text: '' }, image]);
  });
});
