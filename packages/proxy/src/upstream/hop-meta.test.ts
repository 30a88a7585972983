import { describe, expect, it } from 'vitest';
import { SERVER_INFO_META_KEY } from '../mcp-sdk.js';
import { dropHopMeta } from './hop-meta.js';

describe('dropHopMeta', () => {
  it('drops the upstream’s serverInfo and keeps the other keys', () => {
    const result: Record<string, unknown> = {
      content: [],
      _meta: { [SERVER_INFO_META_KEY]: { name: 'up', version: '1' }, 'example.com/trace': 't' },
    };
    dropHopMeta(result);
    expect(result).toEqual({ content: [], _meta: { 'example.com/trace': 't' } });
  });

  it('removes a _meta left empty; leaves one without the key, or none, as it is', () => {
    const only: Record<string, unknown> = { content: [], _meta: { [SERVER_INFO_META_KEY]: {} } };
    dropHopMeta(only);
    expect(only).toEqual({ content: [] });
    const meta = { progressToken: 1 };
    const plain: Record<string, unknown> = { content: [], _meta: meta };
    dropHopMeta(plain);
    expect(plain._meta).toBe(meta);
    const none: Record<string, unknown> = { content: [] };
    dropHopMeta(none);
    expect(none).toEqual({ content: [] });
  });
});
