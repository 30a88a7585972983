import { DEFAULT_TOKEN_BUDGET } from '@s2sp/server';
import { describe, expect, it } from 'vitest';
import { httpClient, startProxy, TABLE_SERVER } from './support.js';
import { call, code, counts, range, rest, s2sp } from './table-calls.js';

describe('filter through the proxy (PROTOCOL §7.3)', () => {
  it('returns only matching rows with matched_rows, and pages a large selection', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'big' }],
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const few = s2sp(
      await call(agent.client, 'big', {
        abstract_domains: 'city,population',
        filter: { city: 'austin', population: { lt: 100 } },
      }),
    );
    expect(few.matched_rows).toBe(20);
    expect(few.total_rows).toBe(10_000);
    expect(few.abstract.map((row) => row._row_id)).toEqual(range(20).map((i) => i * 5));
    expect(few.abstract.every((row) => row.city === 'Austin')).toBe(true);
    expect(few.next_cursor).toBeUndefined();

    // As JSON text too; then more matches than fit: paged, every page only matching rows.
    const first = s2sp(
      await call(agent.client, 'big', {
        abstract_domains: 'city',
        filter: '{"city":{"in":["Boston","Denver"]}}',
      }),
    );
    expect(first.matched_rows).toBe(4000);
    const pages = await rest(agent.client, first, DEFAULT_TOKEN_BUDGET);
    const ids = [first, ...pages].flatMap((page) => page.abstract.map((row) => row._row_id));
    expect(ids).toEqual(range(10_000).filter((i) => i % 5 === 1 || i % 5 === 3));
    // The resource_url still covers the whole table.
    const redeemed = await fetch(first.resource_url ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"row_ids":[0,9999]}',
    });
    expect((await redeemed.json()).body.map((row: { city: string }) => row.city)).toEqual([
      'Austin',
      'El Paso',
    ]);
    expect((await counts(agent.client)).big).toBe(2);
  });

  it('refuses a filter that cannot work before the upstream is called', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'big' }],
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    for (const args of [
      { abstract_domains: 'city', filter: { population: { lt: 5 } } }, // not an abstract column
      { abstract_domains: 'city', filter: { city: { like: 'A%' } } }, // unknown operator
      { abstract_domains: 'city', filter: '{"city":' }, // broken JSON text
      { abstract_domains: 'city', filter: 7 },
      { filter: { city: 'Austin' } }, // no abstract_domains to filter on
    ]) {
      const refused = await call(agent.client, 'big', args);
      expect(refused.isError, JSON.stringify(args)).toBe(true);
      expect(code(refused)).toBe('invalid_request');
    }
    expect((await counts(agent.client)).big).toBeUndefined();
  });
});
