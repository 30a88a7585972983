import { PROTOCOL, S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { S2SPDispatcher } from './dispatcher.js';
import { adapterSetup, type WithS2SPOptions } from './with-s2sp-options.js';

const ADAPTER = { name: '@s2sp/client/test' };

function errorOf(options: unknown, adapter: Parameters<typeof adapterSetup>[1] = ADAPTER) {
  try {
    adapterSetup(options as WithS2SPOptions, adapter);
  } catch (error) {
    if (S2SPError.isInstance(error)) return { code: error.code, data: error.data };
    throw error;
  }
  throw new Error('accepted');
}

describe('adapterSetup', () => {
  it('declares nothing by default, with a fresh dispatcher or the shared one', () => {
    const setup = adapterSetup(undefined, ADAPTER);
    expect(setup.declared).toBeUndefined();
    expect(setup.compact).toBe(false);
    expect(setup.dispatcher).toBeInstanceOf(S2SPDispatcher);
    const dispatcher = new S2SPDispatcher();
    expect(adapterSetup({ dispatcher }, ADAPTER).dispatcher).toBe(dispatcher);
  });

  it('declares the encoding under the §7.5 _meta key', () => {
    expect(adapterSetup({ abstractEncoding: 'compact' }, ADAPTER)).toMatchObject({
      declared: { [PROTOCOL.abstractEncodingMeta]: 'compact' },
      compact: true,
    });
    expect(adapterSetup({ abstractEncoding: 'json' }, ADAPTER)).toMatchObject({
      declared: { [PROTOCOL.abstractEncodingMeta]: 'json' },
      compact: false,
    });
  });

  it('refuses an unknown encoding, and any where the framework cannot send it', () => {
    const option = { option: 'abstractEncoding' };
    expect(errorOf({ abstractEncoding: 'COMPACT' })).toEqual({
      code: 'invalid_config',
      data: option,
    });
    expect(errorOf({ abstractEncoding: ['compact'] })).toEqual({
      code: 'invalid_config',
      data: option,
    });
    const hooksOnly = { ...ADAPTER, cannotDeclare: 'its hooks cannot set _meta' };
    expect(errorOf({ abstractEncoding: 'json' }, hooksOnly)).toEqual({
      code: 'invalid_config',
      data: option,
    });
    expect(adapterSetup({}, hooksOnly).declared).toBeUndefined();
  });

  it('declares where it reads a sync body under the §7.11 _meta key, beside the encoding', () => {
    expect(adapterSetup({ syncBody: 'structured' }, ADAPTER).declared).toEqual({
      [PROTOCOL.syncBodyMeta]: 'structured',
    });
    expect(
      adapterSetup({ syncBody: 'both', abstractEncoding: 'compact' }, ADAPTER).declared,
    ).toEqual({ [PROTOCOL.syncBodyMeta]: 'both', [PROTOCOL.abstractEncodingMeta]: 'compact' });
  });

  it('refuses an unknown sync body place, and any where the framework cannot send it', () => {
    const refused = { code: 'invalid_config', data: { option: 'syncBody' } };
    expect(errorOf({ syncBody: 'text' })).toEqual(refused);
    expect(errorOf({ syncBody: true })).toEqual(refused);
    const hooksOnly = { ...ADAPTER, cannotDeclare: 'its hooks cannot set _meta' };
    expect(errorOf({ syncBody: 'structured' }, hooksOnly)).toEqual(refused);
  });
});
