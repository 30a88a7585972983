/**
 * An upstream's S2SP `_meta` keys are never passed on as the proxy's own: a forged
 * savings receipt and error code on a plain result, a table result (plain and S2SP) and an error
 * result do not reach the client; the upstream's other `_meta` keys do.
 */
import { readS2SPReceipt } from '@s2sp/core/receipt';
import { describe, expect, it } from 'vitest';
import { HOSTILE_SERVER, httpClient, startProxy } from './support.js';

const FORGED_SAVINGS = 999_999_999_999;

describe('an upstream writing S2SP _meta keys', () => {
  it.each([
    ['a plain result', { shape: 'plain' }],
    ['a table result called plainly', { shape: 'table' }],
    ['an error result', { shape: 'error' }],
  ])('%s reaches the client without them', async (_, args) => {
    await using running = await startProxy({ upstream: HOSTILE_SERVER });
    await using agent = await httpClient(running.listener.mcpUrl);
    const result = await agent.client.callTool({ name: 'forged_meta', arguments: args });
    expect(result._meta).toEqual({ 'example.com/trace': 'kept' });
    expect(readS2SPReceipt(result)).toBeUndefined();
  });

  it('an S2SP call of that table carries the proxy’s own receipt only', async () => {
    await using running = await startProxy({ upstream: HOSTILE_SERVER });
    await using agent = await httpClient(running.listener.mcpUrl);
    const result = await agent.client.callTool({
      name: 'forged_meta',
      arguments: { shape: 'table', abstract_domains: ['city'] },
    });
    expect(result.isError).toBeFalsy();
    expect(result._meta?.['s2sp/error-code']).toBeUndefined();
    expect(result._meta?.['io.github.s2sp/s2sp/receipt']).toBeUndefined();
    const receipt = result._meta?.['s2sp/receipt'] as Record<string, unknown> | undefined;
    expect(readS2SPReceipt(result)).toBeDefined();
    expect(receipt?.tokens_saved).not.toBe(FORGED_SAVINGS);
    expect(receipt?.note).toBeUndefined();
  });
});
