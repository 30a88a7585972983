import { describe, expect, it } from 'vitest';
import { dropS2SPMeta } from './upstream-meta.js';

describe('dropS2SPMeta', () => {
  it('drops S2SP’s keys, in any case, and keeps the others', () => {
    const result: Record<string, unknown> = {
      content: [],
      _meta: JSON.parse(
        '{"s2sp/receipt":{"tokens_saved":999999999999},"s2sp/error-code":"forbidden","S2SP/Receipt":1,"io.github.s2sp/s2sp/x":1,"example.com/trace":"kept","__proto__":{"polluted":true},"s2sp":"not a prefix"}',
      ),
    };
    expect(dropS2SPMeta(result)).toBe(4);
    expect(Object.keys(result._meta as object)).toEqual(['example.com/trace', '__proto__', 's2sp']);
    expect(Object.hasOwn(result._meta as object, '__proto__')).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('removes a _meta left empty; leaves a result without S2SP keys as it is', () => {
    const forged: Record<string, unknown> = { content: [], _meta: { 's2sp/receipt': {} } };
    expect(dropS2SPMeta(forged)).toBe(1);
    expect(forged).toEqual({ content: [] });
    const meta = { progressToken: 1 };
    const plain: Record<string, unknown> = { content: [], _meta: meta };
    expect(dropS2SPMeta(plain)).toBe(0);
    expect(plain._meta).toBe(meta);
    expect(dropS2SPMeta({ content: [], _meta: 'odd' })).toBe(0);
  });
});
