import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { rawCall, rawSession } from './raw-mcp.js';
import { startProxy, TABLE_SERVER } from './support.js';
import { call, code, s2sp, text } from './table-calls.js';

const TOKENS = ['client-one-token-0123456789', 'client-two-token-0123456789'];

async function bearerClient(mcpUrl: string, token: string) {
  const client = new Client({ name: 'limits-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return { client, [Symbol.asyncDispose]: () => client.close() };
}

describe('per-client limits (auth id, else address; never the MCP session)', () => {
  it('110 initializes from one address keep only its 10 newest sessions; another address is served', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    const url = running.listener.mcpUrl;
    const opened: string[] = [];
    let refused = 0;
    for (let i = 0; i < 110; i++) {
      const session = await rawSession(url, { localAddress: '127.0.0.1' });
      if (session.sessionId) opened.push(session.sessionId);
      else refused++;
    }
    expect(refused).toBe(0);
    // Its oldest sessions were closed to make room for its newest ones.
    const oldest = await rawCall(
      url,
      opened[0] as string,
      'plain',
      {},
      { localAddress: '127.0.0.1' },
    );
    expect(oldest.status).toBe(404);
    const newest = await rawCall(
      url,
      opened.at(-1) as string,
      'plain',
      {},
      { localAddress: '127.0.0.1' },
    );
    expect((newest.result?.content as { text: string }[] | undefined)?.[0]?.text).toBe(
      'hello world; args={}',
    );
    // Another client, by address, opens a session and is served.
    const other = await rawSession(url, { localAddress: '127.0.0.2' });
    expect(other.status).toBe(200);
    const served = await rawCall(
      url,
      other.sessionId as string,
      'plain',
      {},
      { localAddress: '127.0.0.2' },
    );
    expect((served.result?.content as { text: string }[] | undefined)?.[0]?.text).toBe(
      'hello world; args={}',
    );
  });

  it('a client that fills its bytes gets store_full; another client still stores', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'big' }],
      auth: { bearerTokens: TOKENS },
      maxBytesPerClient: 100_000,
    });
    await using first = await bearerClient(running.listener.mcpUrl, TOKENS[0] as string);
    await using second = await bearerClient(running.listener.mcpUrl, TOKENS[1] as string);
    // 1,000 rows of ~60 bytes: about 60 kB each.
    s2sp(await call(first.client, 'big', { count: 1000, abstract_domains: 'city', mode: 'async' }));
    const full = await call(first.client, 'big', { count: 1000, abstract_domains: 'city' });
    expect(code(full)).toBe('store_full');
    expect(text(full)).toMatch(/over its limit of 100000/);
    s2sp(await call(second.client, 'big', { count: 1000, abstract_domains: 'city' }));
  });

  it('a client over maxCallsPerClient is refused with unavailable; another client is not', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      auth: { bearerTokens: TOKENS },
      maxCallsPerClient: 2,
    });
    await using first = await bearerClient(running.listener.mcpUrl, TOKENS[0] as string);
    await using second = await bearerClient(running.listener.mcpUrl, TOKENS[1] as string);
    const slow = () => call(first.client, 'slow', { steps: 5, ms: 100 });
    const running2 = [slow(), slow()];
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await call(first.client, 'plain');
    expect(code(refused)).toBe('unavailable');
    expect(text(refused)).toContain('2 requests of this client are running');
    const other = await call(second.client, 'plain');
    expect(other.content[0]?.text).toBe('hello world; args={}');
    for (const result of await Promise.all(running2)) expect(result.isError).toBeFalsy();
    expect((await call(first.client, 'plain')).content[0]?.text).toBe('hello world; args={}');
  });
});
