import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '../../mcp-sdk.js';
import { LargeText } from '../../upstream/large-strings.js';
import { opts, ROWS, resizableUtf8, text } from './__fixtures__/tool-results.js';
import { type Block, releaseTexts, textOf } from './block-text.js';
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

describe('textOf', () => {
  it('decodes a text kept as bytes once, and gives the bytes’ buffer back', () => {
    const bytes = resizableUtf8('id,name\n1,é\n');
    const block = { type: 'text', text: new LargeText(bytes) } as unknown as Block;
    expect(textOf(block)).toBe('id,name\n1,é\n');
    expect(block).toEqual({ type: 'text', text: 'id,name\n1,é\n' });
    expect(bytes.buffer.byteLength).toBe(0);
    expect(textOf(block)).toBe('id,name\n1,é\n');
  });

  it('leaves a buffer that cannot shrink as it is, and reads a plain text as it is', () => {
    const bytes = new TextEncoder().encode('a,b\n1,2\n');
    const block = { type: 'text', text: new LargeText(bytes) } as unknown as Block;
    expect(textOf(block)).toBe('a,b\n1,2\n');
    expect(bytes.byteLength).toBe(8);
    expect(textOf({ type: 'text', text: 'plain' })).toBe('plain');
    expect(textOf({ type: 'image', data: 'AAAA', mimeType: 'image/png' })).toBeUndefined();
  });
});
