import { describe, expect, it } from 'vitest';
import { ABSTRACT_ENCODING_META, callEncoding } from './abstract-encoding.js';

describe('callEncoding', () => {
  it('keeps the server default when the host declares nothing', () => {
    expect(callEncoding('json', undefined)).toBe('json');
    expect(callEncoding('compact', {})).toBe('compact');
    expect(callEncoding('json', { progressToken: 1 })).toBe('json');
  });

  it('follows the encoding the host declares, either way', () => {
    expect(callEncoding('json', { [ABSTRACT_ENCODING_META]: 'compact' })).toBe('compact');
    expect(callEncoding('compact', { [ABSTRACT_ENCODING_META]: 'json' })).toBe('json');
  });

  it('ignores a value it does not know', () => {
    expect(callEncoding('json', { [ABSTRACT_ENCODING_META]: 'COMPACT' })).toBe('json');
    expect(callEncoding('json', { [ABSTRACT_ENCODING_META]: ['compact'] })).toBe('json');
    expect(callEncoding('compact', { [ABSTRACT_ENCODING_META]: 'arrow' })).toBe('compact');
  });
});
