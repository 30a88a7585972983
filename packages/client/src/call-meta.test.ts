import { describe, expect, it } from 'vitest';
import { callMeta } from './call-meta.js';

describe('callMeta', () => {
  it('adds nothing when there is nothing to add, so the call goes out as it was', () => {
    expect(callMeta({ progressToken: 1 }, undefined)).toBeUndefined();
    expect(callMeta(undefined, {})).toBeUndefined();
  });

  it('puts the entries under the call’s own _meta, whose entries win', () => {
    expect(callMeta({ progressToken: 1, a: 'mine' }, { a: 'ours', b: 'ours' })).toEqual({
      a: 'mine',
      b: 'ours',
      progressToken: 1,
    });
    expect(callMeta('not an object', { b: 'ours' })).toEqual({ b: 'ours' });
  });
});
