import { describe, expect, it } from 'vitest';
import { createS2SPProxy } from '../src/index.js';
import { httpClient, startProxy, TABLE_SERVER } from './support.js';
import { call, code, s2sp } from './table-calls.js';

describe('maxEntriesPerClient through the proxy', () => {
  it('gives each downstream session its own share; reading a page frees a slot', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'big' }],
      tokenBudget: 2_000,
      maxEntriesPerClient: 6,
    });
    await using first = await httpClient(running.listener.mcpUrl);
    await using second = await httpClient(running.listener.mcpUrl);
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

    // Another session is not affected.
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
