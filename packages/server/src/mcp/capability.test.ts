import { describe, expect, it } from 'vitest';
import { s2spCapability } from './capability.js';

describe('s2spCapability', () => {
  it('declares the version, the data-plane path and the roles, once each and sorted', () => {
    expect(s2spCapability(['resource', 'consumer', 'resource'])).toEqual({
      version: '0.2',
      dataPlanePath: '/s2sp/data/',
      roles: ['consumer', 'resource'],
    });
  });
});
