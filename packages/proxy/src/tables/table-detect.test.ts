import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '../mcp-sdk.js';
import { parseJsonPointer } from './json-pointer.js';
import { findTable } from './table-detect.js';

const opts = { maxTextLength: 1_000_000 };
const text = (value: unknown): CallToolResult => ({
  content: [
    { type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) },
  ],
});

describe('findTable', () => {
  it('finds an array of objects in one text block (server-postgres style)', () => {
    const found = findTable(text([{ id: 1 }, { id: 2, name: 'b' }]), opts);
    expect(found).toEqual({ kind: 'table', rows: [{ id: 1 }, { id: 2, name: 'b' }], pointer: '' });
  });

  it('finds the one array-of-objects member of an object, in structuredContent first', () => {
    const result: CallToolResult = {
      content: [{ type: 'text', text: 'ignored' }],
      structuredContent: { rows: [{ a: 1 }], count: 1, tags: ['x'] },
    };
    expect(findTable(result, opts)).toMatchObject({
      kind: 'table',
      rows: [{ a: 1 }],
      pointer: '/rows',
    });
    expect(findTable(text({ 'a/b': [{ a: 1 }] }), opts)).toMatchObject({ pointer: '/a~1b' });
  });

  it('treats an empty array as an empty table', () => {
    expect(findTable(text([]), opts)).toMatchObject({ kind: 'table', rows: [] });
  });

  it('follows a configured pointer', () => {
    const doc = { data: { items: [{ a: 1 }] }, other: [{ b: 2 }] };
    expect(
      findTable(text(doc), { ...opts, pointer: parseJsonPointer('/data/items') }),
    ).toMatchObject({
      kind: 'table',
      rows: [{ a: 1 }],
      pointer: '/data/items',
    });
    expect(findTable(text(doc), { ...opts, pointer: parseJsonPointer('/missing') }).kind).toBe(
      'not-table',
    );
  });

  it('says why a result is not a table', () => {
    const cases: [CallToolResult, RegExp][] = [
      [{ content: [{ type: 'text', text: '[1]' }], isError: true }, /error/],
      [text('hello'), /not JSON/],
      [text('[{"a":'), /not valid JSON/],
      [text([1, 2]), /not a JSON array of objects/],
      [text([{ a: 1 }, null]), /not a JSON array of objects/],
      [text({ a: [{ x: 1 }], b: [{ y: 1 }] }), /2 arrays of objects/],
      [{ content: [] }, /0 content blocks/],
      [{ content: [{ type: 'image', data: '', mimeType: 'image/png' }] }, /image block/],
    ];
    for (const [result, reason] of cases) {
      const found = findTable(result, opts);
      expect(found.kind).toBe('not-table');
      expect(found.kind === 'not-table' && found.reason).toMatch(reason);
    }
    expect(findTable(text([{ a: 'x'.repeat(100) }]), { maxTextLength: 50 })).toMatchObject({
      kind: 'not-table',
    });
  });
});
