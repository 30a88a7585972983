import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createS2SPProxy } from '../src/index.js';
import { startProxy, TABLE_SERVER } from './support.js';
import { call, code, s2sp } from './table-calls.js';

describe('maxEntriesPerClient through the proxy', () => {
  it('gives each downstream client its own share; reading a page frees a slot', async () => {
    const tokens = ['quota-client-one-0123456789', 'quota-client-two-0123456789'];
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'big' }],
      tokenBudget: 2_000,
      maxEntriesPerClient: 6,
      auth: { bearerTokens: tokens },
    });
    const connect = async (token: string) => {
      const client = new Client({ name: 'quota-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(running.listener.mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return { client, [Symbol.asyncDispose]: () => client.close() };
    };
    await using first = await connect(tokens[0] as string);
    await using second = await connect(tokens[1] as string);
    // A second session of the first client shares its quota: the MCP session is not the client.
    await using again = await connect(tokens[0] as string);
    // 200 rows of one column: the table and a few pages, within the six entries.
    const paged = s2sp(await call(first.client, 'big', { count: 200, abstract_domains: 'city' }));
    expect(paged.next_cursor).toEqual(expect.any(String));
    let held = 1;
    while (true) {
      const more = await call(first.client, 'big', { count: 1, abstract_domains: 'city' });
      if (more.isError) {
        expect(code(more)).toBe('store_full');
        break;
      }
      held++;
      expect(held).toBeLessThanOrEqual(6);
    }
    // The table's entry, its unread pages and the one-row results fill the six.
    expect(held).toBeLessThan(6);

    expect(code(await call(again.client, 'big', { count: 1, abstract_domains: 'city' }))).toBe(
      'store_full',
    );
    // Another client is not affected.
    s2sp(await call(second.client, 'big', { count: 1, abstract_domains: 'city' }));

    // Reading a page gives the first session one slot back.
    s2sp(await call(first.client, 'big', { cursor: paged.next_cursor }));
    s2sp(await call(first.client, 'big', { count: 1, abstract_domains: 'city' }));
  });

  it('refuses a maxEntriesPerClient that is not a positive integer', () => {
    for (const maxEntriesPerClient of [0, -1, 1.5]) {
      let thrown: unknown;
      try {
        createS2SPProxy({
          upstream: TABLE_SERVER,
          maxEntriesPerClient,
        });
      } catch (error) {
        thrown = error;
      }
      expect((thrown as { code?: string }).code).toBe('invalid_config');
    }
  });
});
