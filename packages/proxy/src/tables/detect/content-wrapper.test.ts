import { describe, expect, it } from 'vitest';
import { opts, REAL, ROWS } from './__fixtures__/tool-results.js';
import { contentWrapper } from './content-wrapper.js';
import { findTable } from './find-table.js';

describe('an MCP tool result inside a text block (github-mcp-server)', () => {
  it('is searched inside, never taken for a 1-row table of type, text', () => {
    const found = findTable(REAL.contentWrapper(JSON.stringify(ROWS)), opts);
    expect(found).toMatchObject({ kind: 'table', rows: ROWS, format: 'json', source: 0 });
    const csv = findTable(REAL.contentWrapper('id,name\n1,a\n2,b'), opts);
    expect(csv).toMatchObject({
      kind: 'table',
      format: 'csv',
      rows: [
        { id: 1, name: 'a' },
        { id: 2, name: 'b' },
      ],
    });
  });

  it('without a table inside, is refused saying what it is', () => {
    const found = findTable(REAL.contentWrapper('Issue #12 closed.'), opts);
    expect(found).toMatchObject({ kind: 'not-table', reason: /MCP tool result/ });
    const twice = REAL.contentWrapper(JSON.stringify({ content: [{ type: 'text', text: '[]' }] }));
    expect(findTable(twice, opts)).toMatchObject({ kind: 'not-table', reason: /inside another/ });
  });

  it('is only an object of a tool result’s members with content blocks', () => {
    expect(contentWrapper({ content: [{ type: 'text', text: 'a' }], isError: false })).toEqual({
      content: [{ type: 'text', text: 'a' }],
    });
    expect(contentWrapper({ content: [{ type: 'text', text: 'a' }], total: 1 })).toBeUndefined();
    expect(contentWrapper({ content: [{ type: 'text' }] })).toBeUndefined();
    expect(contentWrapper({ content: [] })).toBeUndefined();
    expect(contentWrapper([{ type: 'text', text: 'a' }])).toBeUndefined();
  });
});
