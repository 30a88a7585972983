import { PROTOCOL } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { callEncoding, callSyncBody } from './call-declarations.js';

describe('callEncoding', () => {
  it('keeps the server default when the host declares nothing', () => {
    expect(callEncoding('json', undefined)).toBe('json');
    expect(callEncoding('compact', {})).toBe('compact');
    expect(callEncoding('json', { progressToken: 1 })).toBe('json');
  });

  it('follows the encoding the host declares, either way', () => {
    expect(callEncoding('json', { [PROTOCOL.abstractEncodingMeta]: 'compact' })).toBe('compact');
    expect(callEncoding('compact', { [PROTOCOL.abstractEncodingMeta]: 'json' })).toBe('json');
  });

  it('ignores a value it does not know', () => {
    expect(callEncoding('json', { [PROTOCOL.abstractEncodingMeta]: 'COMPACT' })).toBe('json');
    expect(callEncoding('json', { [PROTOCOL.abstractEncodingMeta]: ['compact'] })).toBe('json');
    expect(callEncoding('compact', { [PROTOCOL.abstractEncodingMeta]: 'arrow' })).toBe('compact');
  });
});

describe('callSyncBody', () => {
  it('keeps the body in both places when the host declares nothing', () => {
    expect(callSyncBody(undefined)).toBe('both');
    expect(callSyncBody({ [PROTOCOL.abstractEncodingMeta]: 'compact' })).toBe('both');
  });

  it('follows the place the host declares', () => {
    expect(callSyncBody({ [PROTOCOL.syncBodyMeta]: 'structured' })).toBe('structured');
    expect(callSyncBody({ [PROTOCOL.syncBodyMeta]: 'both' })).toBe('both');
  });

  it('ignores a value it does not know', () => {
    expect(callSyncBody({ [PROTOCOL.syncBodyMeta]: 'STRUCTURED' })).toBe('both');
    expect(callSyncBody({ [PROTOCOL.syncBodyMeta]: true })).toBe('both');
    expect(callSyncBody({ [PROTOCOL.syncBodyMeta]: ['structured'] })).toBe('both');
  });
});
