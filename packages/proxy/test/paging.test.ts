import { DEFAULT_TOKEN_BUDGET, estimateTokens } from '@s2sp/server';
import { describe, expect, it } from 'vitest';
import { createS2SPProxy } from '../src/index.js';
import { httpClient, startProxy, TABLE_SERVER } from './support.js';
import { call, code, counts, listed, range, rest, s2sp, text } from './table-calls.js';

describe('paging through the proxy (PROTOCOL §7.2)', () => {
  it('bounds a 10,000-row table by the budget, pages it from the store and calls the upstream once', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'big' }],
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const big = await listed(agent.client, 'big');
    expect(Object.keys(big?.inputSchema.properties ?? {})).toEqual([
      'count',
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
      'abstract_budget_tokens',
      'table',
    ]);

    const answer = await call(agent.client, 'big', { abstract_domains: 'city,population' });
    expect(estimateTokens(text(answer))).toBeLessThanOrEqual(DEFAULT_TOKEN_BUDGET);
    const first = s2sp(answer);
    expect(first.total_rows).toBe(10_000);
    expect(first.abstract.length).toBeGreaterThan(0);
    expect(first.abstract.length).toBeLessThan(10_000);
    expect(first.profile).toMatchObject({
      city: { distinct: 5, top: { Austin: 2000, Boston: 2000 } },
      population: { min: 0, max: 9999 },
    });
    expect(first.next_cursor).toEqual(expect.any(String));

    const pages = await rest(agent.client, first, DEFAULT_TOKEN_BUDGET);
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) {
      expect(page.profile).toBeUndefined();
      expect(page.resource_url).toBe(first.resource_url);
      expect(page.total_rows).toBe(10_000);
    }
    const ids = [first, ...pages].flatMap((page) => page.abstract.map((row) => row._row_id));
    expect(ids).toEqual(range(10_000));
    expect(pages.at(-1)?.abstract.at(-1)).toEqual({
      _row_id: 9999,
      city: 'El Paso',
      population: 9999,
    });
    expect((await counts(agent.client)).big).toBe(1);

    // The resource_url of a paged result still redeems the whole table, every column.
    const redeemed = await fetch(first.resource_url ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(redeemed.status).toBe(200);
    const body = (await redeemed.json()).body as Record<string, unknown>[];
    expect(body.map((row) => row._row_id)).toEqual(range(10_000));
    expect(body[4321]).toEqual({
      _row_id: 4321,
      id: 4321,
      city: 'Boston',
      population: 4321,
      notes: 'row 4321 of 10000',
    });
  });

  it('refuses a used cursor as not_found and a forged one as invalid_request, without calling the upstream', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'big' }],
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const first = s2sp(await call(agent.client, 'big', { abstract_domains: 'city' }));
    const cursor = String(first.next_cursor);
    expect(s2sp(await call(agent.client, 'big', { cursor })).abstract.length).toBeGreaterThan(0);

    const reused = await call(agent.client, 'big', { cursor });
    expect(reused.isError).toBe(true);
    expect(code(reused)).toBe('not_found');
    // Same shape, a table that was never made.
    const unknown = await call(agent.client, 'big', {
      cursor: cursor.replace(/\.[^.]+\./, `.${'A'.repeat(43)}.`),
    });
    expect(code(unknown)).toBe('not_found');
    for (const garbage of ['garbage', 'c1.short.1', 42, ['c1']]) {
      const refused = await call(agent.client, 'big', { cursor: garbage });
      expect(refused.isError).toBe(true);
      expect(code(refused)).toBe('invalid_request');
    }
    expect((await counts(agent.client)).big).toBe(1);
    // null is absent (strict-schema clients send it for every parameter left out): a fresh call.
    const fresh = s2sp(await call(agent.client, 'big', { abstract_domains: 'city', cursor: null }));
    expect(fresh.next_cursor).toEqual(expect.any(String));
    expect((await counts(agent.client)).big).toBe(2);
  });

  it('takes its budget from the tokenBudget option, and refuses one that cannot work', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'big' }],
      tokenBudget: 2000,
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const answer = await call(agent.client, 'big', { abstract_domains: 'city', count: 2000 });
    expect(estimateTokens(text(answer))).toBeLessThanOrEqual(2000);
    const first = s2sp(answer);
    const pages = await rest(agent.client, first, 2000);
    expect(pages.length).toBeGreaterThan(1);
    expect([first, ...pages].flatMap((page) => page.abstract.map((row) => row._row_id))).toEqual(
      range(2000),
    );
    // Within the budget: no paging members at all (PROTOCOL §2 as it was).
    const small = s2sp(await call(agent.client, 'big', { abstract_domains: 'city', count: 50 }));
    expect(small.abstract).toHaveLength(50);
    expect(small.next_cursor).toBeUndefined();
    expect(small.profile).toBeUndefined();

    for (const tokenBudget of [0, -1, 1.5, Number.NaN]) {
      expect(() => createS2SPProxy({ upstream: TABLE_SERVER, tokenBudget })).toThrow(
        expect.objectContaining({ code: 'invalid_config' }),
      );
    }
  });
});

describe("an upstream's own cursor (S2SP's is prefixed)", () => {
  it('is listed and forwarded untouched, while S2SP’s cursor is s2sp_cursor', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'own_cursor' }],
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const tool = await listed(agent.client, 'own_cursor');
    expect(tool?.inputSchema.properties).toMatchObject({
      cursor: { type: 'string', description: 'Opaque page token of this upstream.' },
    });
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual([
      'cursor',
      'count',
      'abstract_domains',
      'mode',
      'filter',
      's2sp_cursor',
      'abstract_budget_tokens',
      'table',
    ]);
    expect(tool?.description).toContain("s2sp_cursor (S2SP's cursor)");

    // Plain: exactly what the upstream made of its own cursor.
    const plain = await call(agent.client, 'own_cursor', { cursor: 'c1.not-ours.1' });
    expect(JSON.parse(text(plain)).map((row: { cursor: string }) => row.cursor)).toEqual([
      'c1.not-ours.1',
      'c1.not-ours.1',
      'c1.not-ours.1',
    ]);
    // With S2SP: the cursor still goes upstream, and filter is S2SP's.
    const split = s2sp(
      await call(agent.client, 'own_cursor', {
        cursor: 'page-2',
        abstract_domains: 'id,cursor',
        filter: { id: { gte: 1 } },
      }),
    );
    expect(split.matched_rows).toBe(2);
    expect(split.abstract).toEqual([
      { _row_id: 1, id: 1, cursor: 'page-2' },
      { _row_id: 2, id: 2, cursor: 'page-2' },
    ]);
    const bad = await call(agent.client, 'own_cursor', {
      cursor: 'page-2',
      abstract_domains: 'id',
      filter: { nope: 1 },
    });
    expect(code(bad)).toBe('invalid_request');
    expect((await counts(agent.client)).own_cursor).toBe(2);
  });

  it('pages over the budget through s2sp_cursor, the upstream keeping its own cursor', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'own_cursor' }],
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const first = s2sp(
      await call(agent.client, 'own_cursor', {
        count: 10_000,
        cursor: 'theirs',
        abstract_domains: 'id',
      }),
    );
    expect(first.total_rows).toBe(10_000);
    expect(first.next_cursor).toBeDefined();
    const second = s2sp(await call(agent.client, 'own_cursor', { s2sp_cursor: first.next_cursor }));
    expect(second.abstract[0]?._row_id).toBe(first.abstract.length);
    // The page came from the store: the upstream ran once.
    expect((await counts(agent.client)).own_cursor).toBe(1);
    // S2SP's cursor under the upstream's name is the upstream's: not a page.
    const theirs = await call(agent.client, 'own_cursor', { cursor: first.next_cursor });
    expect(JSON.parse(text(theirs))[0].cursor).toBe(first.next_cursor);
  });
});
