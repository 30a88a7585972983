import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  DEFAULT_TOKEN_BUDGET,
  estimateTokens,
  type S2SPResult,
  S2SPResultSchema,
} from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { createS2SPProxy } from '../src/index.js';
import { httpClient, startProxy, TABLE_SERVER } from './support.js';

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as Result;
const code = (result: Result) => result._meta?.['s2sp/error-code'];
const text = (result: Result) => result.content[0]?.text ?? '';
const s2sp = (result: Result): S2SPResult => {
  expect(result.isError, text(result)).toBeFalsy();
  return S2SPResultSchema.parse(result.structuredContent);
};
const counts = async (client: Client) =>
  JSON.parse(text(await call(client, 'call_counts'))) as Record<string, number>;
/** A tool as the proxy lists it (the fixture lists four tools a page). */
async function listed(client: Client, name: string) {
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    const found = page.tools.find((t) => t.name === name);
    if (found) return found;
    cursor = page.nextCursor;
  } while (cursor);
  return undefined;
}
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Follows every next_cursor; returns the pages after the first, each checked against the budget. */
async function rest(client: Client, first: S2SPResult, budget: number) {
  const pages: S2SPResult[] = [];
  let cursor = first.next_cursor;
  while (cursor !== undefined) {
    const page = await call(client, 'big', { cursor });
    expect(estimateTokens(text(page))).toBeLessThanOrEqual(budget);
    const result = s2sp(page);
    pages.push(result);
    cursor = result.next_cursor;
  }
  return pages;
}

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

describe("an upstream's own cursor (PROTOCOL §7.2, last bullets)", () => {
  it('is listed and forwarded untouched, while filter stays S2SP’s', async () => {
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
    ]);

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

  it('is never paged: a next_cursor could not be sent back', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'own_cursor' }],
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const whole = s2sp(
      await call(agent.client, 'own_cursor', { count: 10_000, abstract_domains: 'id' }),
    );
    expect(whole.next_cursor).toBeUndefined();
    expect(whole.abstract.map((row) => row._row_id)).toEqual(range(10_000));
  });
});
