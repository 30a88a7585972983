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

  it('reads the 2026-07-28 extension declaration first, then experimental.s2sp', () => {
    const modern = { version: '0.3', dataPlanePath: '/s2sp/data/', roles: ['consumer'] };
    const legacy = { version: '0.2', dataPlanePath: '/s2sp/data/' };
    expect(readS2SPCapability({ extensions: { 'io.github.s2sp/s2sp': modern } })).toEqual(modern);
    expect(
      readS2SPCapability({
        extensions: { 'io.github.s2sp/s2sp': modern },
        experimental: { s2sp: legacy },
      }),
    ).toEqual(modern);
    // A malformed extension entry does not hide a valid experimental one.
    expect(
      readS2SPCapability({
        extensions: { 'io.github.s2sp/s2sp': { version: 2 } },
        experimental: { s2sp: legacy },
      }),
    ).toEqual(legacy);
  });

  it.each([
    undefined,
    { extensions: { s2sp: { version: '0.2', dataPlanePath: '/s2sp/data/' } } },
    { extensions: 'yes' },
    null,
    {},
    { experimental: {} },
    { experimental: { s2sp: 'yes' } },
    { experimental: { s2sp: { version: 2 } } },
  ])('is undefined for a server without a valid declaration (%j)', (capabilities) => {
    expect(readS2SPCapability(capabilities)).toBeUndefined();
  });
});
