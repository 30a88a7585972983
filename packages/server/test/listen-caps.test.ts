// 2026-07-28 `subscriptions/listen` streams are capped per client beside the cap for everyone: a
// client that opens them in a loop fills its own share, and another client still listens. Real
// SDK v2 clients against createS2SPServer on a loopback port, told apart by their bearer tokens.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MODERN_REVISION } from '@s2sp/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createS2SPServer, silentLogger } from '../src/index.js';

const TOKENS = ['listen-cap-token-one-0123456789', 'listen-cap-token-two-0123456789'] as const;

const open: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close().catch(() => {});
});

async function startServer(options: { maxListenStreamsPerClient?: number } = {}) {
  const server = createS2SPServer({
    name: 'listen-caps',
    version: '1',
    logger: silentLogger,
    auth: { bearerTokens: [...TOKENS] },
    ...options,
  });
  server.resourceTool('rows', { description: 'Rows.' }, () => [{ id: 1 }]);
  const listening = await server.listen();
  open.push(() => server.close());
  return listening.mcpUrl;
}

async function modernClient(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client(
    { name: 'listener', version: '1' },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  open.push(() => client.close());
  return client;
}

/** A listen's outcome: its subscription, or the JSON-RPC error's code and data. */
async function listen(client: Client) {
  try {
    const subscription = await client.listen({ toolsListChanged: true });
    open.push(() => subscription.close());
    return { subscription };
  } catch (error) {
    const { code, data } = error as { code?: unknown; data?: unknown };
    return { code, data };
  }
}

describe('subscriptions/listen streams per client', () => {
  it('refuses a client over its cap with -32000 / unavailable; another client still listens', async () => {
    const url = await startServer({ maxListenStreamsPerClient: 3 });
    const first = await modernClient(url, TOKENS[0]);
    const second = await modernClient(url, TOKENS[1]);
    const held = [];
    for (let n = 0; n < 3; n++) held.push(await listen(first));
    for (const outcome of held)
      expect(outcome.subscription?.honoredFilter.toolsListChanged).toBe(true);

    const refused = await listen(first);
    expect(refused.subscription).toBeUndefined();
    expect(refused).toMatchObject({
      code: -32000,
      data: { code: 'unavailable', limit: 3, scope: 'client' },
    });

    // The other token is another client: its own share is untouched.
    const other = await listen(second);
    expect(other.subscription?.honoredFilter.toolsListChanged).toBe(true);

    // A closed stream gives its slot back.
    await held[0]?.subscription?.close();
    await expect
      .poll(async () => (await listen(first)).subscription !== undefined, { timeout: 5_000 })
      .toBe(true);
  });

  it('has a small default, and refuses a setting it cannot hold', async () => {
    const url = await startServer();
    const client = await modernClient(url, TOKENS[0]);
    const outcomes = [];
    for (let n = 0; n < 9; n++) outcomes.push(await listen(client));
    expect(outcomes.filter((outcome) => outcome.subscription).length).toBe(8);
    expect(outcomes.at(-1)).toMatchObject({ code: -32000, data: { limit: 8 } });
    for (const value of [0, 1.5, 1025])
      expect(() =>
        createS2SPServer({ name: 'x', version: '1', maxListenStreamsPerClient: value }),
      ).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });
});
