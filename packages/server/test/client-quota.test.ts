// Per-client quota of unredeemed results, through the real /mcp endpoint.
import { connectMcpClient, textOf } from '@s2sp/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { createS2SPServer, silentLogger } from '../src/index.js';

describe('maxEntriesPerClient', () => {
  it('stops one client at its limit, ignores a forged address header, and frees room on redemption', async () => {
    const server = createS2SPServer({
      name: 'quota',
      version: '1',
      logger: silentLogger,
      maxEntriesPerClient: 3,
    });
    server.resourceTool('rows', { description: 'rows' }, () => [{ a: 1, b: 2 }]);
    await using listening = await server.listen();
    await using agent = await connectMcpClient(listening.mcpUrl);
    const urls: string[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await agent.call('rows', { abstract_domains: 'a' });
      urls.push((result.structuredContent as { resource_url: string }).resource_url);
    }
    const over = await agent.call('rows', { abstract_domains: 'a' });
    expect(over.isError).toBe(true);
    expect(textOf(over)).toMatch(/unredeemed results .*\(its limit\)/);
    expect((await server.store.stats()).entries).toBe(3);

    // A client cannot pick another bucket by sending the header itself.
    const forged = await fetch(listening.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-s2sp-client-address': '198.51.100.9',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'rows', arguments: { abstract_domains: 'a' } },
      }),
    });
    const forgedResult = (await forged.json()) as { result: { isError?: boolean } };
    expect(forgedResult.result.isError).toBe(true);

    // Redeeming one gives its room back; sync mode never counted.
    const redeemed = await fetch(urls[0] as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(redeemed.status).toBe(200);
    expect((await agent.call('rows', { abstract_domains: 'a' })).isError).toBeFalsy();
    expect((await agent.call('rows', { abstract_domains: 'a', mode: 'sync' })).isError).toBeFalsy();
    await server.close();
  });
});

describe('retry-safe redemption and the quota (PROTOCOL §7.10)', () => {
  it('ends a keyed retry with the TTL, and never charges the client past it, however often repeated', async () => {
    // The clock and the timers are fake and jumped over the TTL; they also run on with real time
    // (shouldAdvanceTime), so the sockets and the SDK work as usual. A jump leaves 20 s of the
    // TTL on each side: no slow machine closes that gap.
    vi.useFakeTimers({
      toFake: ['Date', 'setTimeout', 'clearTimeout'],
      shouldAdvanceTime: true,
    });
    try {
      const server = createS2SPServer({
        name: 'grace',
        version: '1',
        logger: silentLogger,
        ttlSeconds: 60,
        retryGraceMs: 600_000,
        maxEntriesPerClient: 1,
      });
      server.resourceTool('rows', { description: 'rows' }, () => [{ a: 1, b: 2 }]);
      await using listening = await server.listen();
      await using agent = await connectMcpClient(listening.mcpUrl);
      const result = await agent.call('rows', { abstract_domains: 'a' });
      const url = (result.structuredContent as { resource_url: string }).resource_url;
      const redeem = () =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': 'retry-key-0123456789abcdefghijklmnop',
          },
          body: '{}',
        }).then((response) => response.status);
      await vi.advanceTimersByTimeAsync(20_000);
      // The take and its repeats within the TTL are served.
      expect([await redeem(), await redeem()]).toEqual([200, 200]);
      await vi.advanceTimersByTimeAsync(20_000);
      expect(await redeem()).toBe(200);
      // Past the TTL: before, the window ran a full grace from the take (served again at 30 s
      // and 62 s of a 5 s TTL), and each repeat restarted the client's hold (store_full after
      // the entries were gone).
      await vi.advanceTimersByTimeAsync(40_000);
      expect(await redeem()).toBe(404);
      expect((await server.store.stats()).entries).toBe(0);
      expect((await agent.call('rows', { abstract_domains: 'a' })).isError).toBeFalsy();
      await server.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
