import { describe, expect, it } from 'vitest';
import { readS2SPCapability } from './capability.js';

describe('S2SP capability', () => {
  it('reads it back from MCP capabilities, ignoring unknown members', () => {
    const declared = {
      version: '0.2',
      dataPlanePath: '/s2sp/data/',
      roles: ['resource'],
      future: { x: 1 },
    };
    expect(readS2SPCapability({ tools: {}, experimental: { s2sp: declared } })).toEqual(declared);
  });

  it.each([
    undefined,
    null,
    {},
    { experimental: {} },
    { experimental: { s2sp: 'yes' } },
    { experimental: { s2sp: { version: 2 } } },
  ])('is undefined for a server without a valid declaration (%j)', (capabilities) => {
    expect(readS2SPCapability(capabilities)).toBeUndefined();
  });
});
