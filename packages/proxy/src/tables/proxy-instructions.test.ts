import { S2SPError } from '@s2sp/core';
import { createS2SP, silentLogger } from '@s2sp/server';
import { afterAll, describe, expect, it } from 'vitest';
import { PROXY_INSTRUCTIONS } from '../advice.js';
import { proxyInstructions } from './proxy-instructions.js';
import { createS2SPCall, type S2SPCall } from './s2sp-call.js';

describe('proxyInstructions', () => {
  const seam = createS2SPCall({
    publicUrl: 'http://127.0.0.1:3010',
    ttlSeconds: 120,
    logger: silentLogger,
  });
  const s2sp = () => seam;
  afterAll(() => seam.close());

  it("keeps the upstream's instructions first, unchanged, then the proxy's labelled paragraph", async () => {
    const upstream = '  Query the warehouse.\n';
    const served = proxyInstructions(upstream, s2sp);
    expect(served.startsWith(`${upstream}\n\n${PROXY_INSTRUCTIONS.label} `)).toBe(true);
    // The servers' paragraph with the proxy's own TTL, then the proxy's parameters.
    const server = createS2SP({ ttlSeconds: 120, logger: silentLogger });
    expect(served).toContain(server.instructions);
    expect(served.endsWith(PROXY_INSTRUCTIONS.parameters)).toBe(true);
    await server.close();
  });

  it('serves its own paragraph alone when the upstream sends none, or only blanks', () => {
    for (const upstream of [undefined, '', ' \n'])
      expect(proxyInstructions(upstream, s2sp).startsWith(PROXY_INSTRUCTIONS.label)).toBe(true);
  });

  it('fails as listing a table tool does while the data plane has no address', () => {
    const closed = (): S2SPCall => {
      throw new S2SPError('invalid_config', 'no address yet');
    };
    let error: unknown;
    try {
      proxyInstructions('Hi.', closed);
    } catch (thrown) {
      error = thrown;
    }
    expect(S2SPError.isInstance(error) && error.code).toBe('invalid_config');
  });
});
