// The proxy's 2026-07-28 leg is the shared edge's: a client's `subscriptions/listen` streams are
// capped per client (its bearer token) beside the cap for all, so one client cannot take every
// slot. Real SDK v2 clients against a proxy on a loopback port.
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import { connectEraClient, MODERN_REVISION } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProxy, startProxy, TABLE_SERVER } from './support.js';

const TOKENS = ['proxy-listen-token-one-0123456789', 'proxy-listen-token-two-0123456789'];

describe('s2sp-proxy subscriptions/listen streams per client', () => {
  let running: RunningProxy;
  beforeAll(async () => {
    running = await startProxy({
      upstream: TABLE_SERVER,
      auth: { bearerTokens: TOKENS },
      maxListenStreamsPerClient: 2,
    });
  });
  afterAll(() => running?.proxy.close());

  const connect = async (token: string) =>
    (
      await connectEraClient(
        running.listener.mcpUrl,
        { sdk: 2, era: MODERN_REVISION },
        { authorization: `Bearer ${token}` },
      )
    ).client as ClientV2;

  const listen = async (client: ClientV2) => {
    try {
      return { subscription: await client.listen({ toolsListChanged: true }) };
    } catch (error) {
      const { code, data } = error as { code?: unknown; data?: unknown };
      return { code, data };
    }
  };

  it('refuses a client over its cap with -32000 / unavailable while another client listens', async () => {
    const first = await connect(TOKENS[0] as string);
    const second = await connect(TOKENS[1] as string);
    try {
      const held = [await listen(first), await listen(first)];
      for (const outcome of held) expect(outcome.subscription).toBeDefined();
      expect(await listen(first)).toMatchObject({
        code: -32000,
        data: { code: 'unavailable', limit: 2, scope: 'client' },
      });
      const other = await listen(second);
      expect(other.subscription?.honoredFilter.toolsListChanged).toBe(true);
      for (const outcome of [...held, other]) await outcome.subscription?.close();
    } finally {
      await first.close();
      await second.close();
    }
  });
});
