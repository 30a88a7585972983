import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { PROTOCOL, S2SPResultSchema } from '@s2sp/core';
import { resourceToolDescription } from '@s2sp/server/gateway';
import { describe, expect, it } from 'vitest';
import { PROXY_INSTRUCTIONS } from '../src/advice.js';
import { httpClient, startProxy, stdioClient, TABLE_SERVER } from './support.js';

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};
const call = async (
  client: import('@modelcontextprotocol/sdk/client/index.js').Client,
  name: string,
  args: Record<string, unknown> = {},
) => (await client.callTool({ name, arguments: args })) as Result;

async function allTools(client: import('@modelcontextprotocol/sdk/client/index.js').Client) {
  const tools = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  return { tools, pages };
}

describe('table tools through the proxy', () => {
  it('passes paginated tool lists through, adding S2SP parameters only to table tools', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(TABLE_SERVER);
    const proxied = await allTools(agent.client);
    const upstream = await allTools(direct.client);
    expect(proxied.pages).toBe(4);
    expect(proxied.tools.map((t) => t.name)).toEqual(upstream.tools.map((t) => t.name));
    const byName = new Map(proxied.tools.map((t) => [t.name, t]));
    // Declared by its outputSchema: a table tool from the start, with an outputSchema that the
    // upstream's result and the S2SP result both satisfy.
    const declared = byName.get('declared');
    expect(Object.keys(declared?.inputSchema.properties ?? {})).toEqual([
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
      'abstract_budget_tokens',
      'table',
    ]);
    expect(declared?.outputSchema?.anyOf).toEqual([
      upstream.tools.find((t) => t.name === 'declared')?.outputSchema,
      expect.objectContaining({
        required: ['total_rows', 'abstract_domains', 'body_domains', 'abstract'],
      }),
    ]);
    // One line pointing to the instructions, which explain the parameters once.
    expect(declared?.description).toContain(
      resourceToolDescription('', 600_000, undefined, 'instructions').trim(),
    );
    expect(declared?.description).toContain('"id", "city", "state", "population", "notes"');
    // Not known yet: exactly as upstream.
    for (const name of ['rows', 'plain', 'own_params', 'wrapped']) {
      expect(byName.get(name)).toEqual(upstream.tools.find((t) => t.name === name));
    }
    expect(agent.client.getServerVersion()).toEqual({ name: 'table-server', version: '1.2.3' });
    const instructions = agent.client.getInstructions() ?? '';
    expect(instructions.startsWith('Fixture instructions.\n\n')).toBe(true);
    expect(instructions).toContain(PROXY_INSTRUCTIONS.label);
  });

  it('returns exactly what the upstream returned when there is no abstract_domains', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(TABLE_SERVER);
    for (const [name, args] of [
      ['rows', {}],
      ['rows', { limit: 1 }],
      ['wrapped', {}],
      ['declared', {}],
      ['plain', { name: 'x' }],
      ['own_params', { abstract_domains: 'keep me' }],
    ] as const) {
      const viaProxy = await call(agent.client, name, args);
      const viaDirect = await call(direct.client, name, args);
      expect(viaProxy).toEqual(viaDirect);
      expect(viaProxy.content[0]?.text).toBe(viaDirect.content[0]?.text);
    }
    // mode alone is an S2SP argument: stripped, so the upstream never sees it.
    expect((await call(agent.client, 'plain', { mode: 'sync' })).content[0]?.text).toBe(
      'hello world; args={}',
    );
  });

  it('learns a table tool from its first result, announces it, and then splits its columns', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    await using agent = await httpClient(running.listener.mcpUrl);
    let changes = 0;
    agent.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    await allTools(agent.client);
    await call(agent.client, 'rows');
    await expect.poll(() => changes).toBe(1);
    const rows = (await allTools(agent.client)).tools.find((t) => t.name === 'rows');
    expect(Object.keys(rows?.inputSchema.properties ?? {})).toEqual([
      'limit',
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
      'abstract_budget_tokens',
      'table',
    ]);
    expect(rows?.description).toMatch(
      /"id" ~\d+, "city" ~\d+, "state" ~\d+, "population" ~\d+, "notes" ~\d+\./,
    );

    const split = await call(agent.client, 'rows', { abstract_domains: 'city', limit: 2 });
    expect(split.isError).toBeFalsy();
    const result = S2SPResultSchema.parse(split.structuredContent);
    expect(result.abstract).toEqual([
      { _row_id: 0, city: 'Austin' },
      { _row_id: 1, city: 'Boston' },
    ]);
    expect(result.body_domains).toEqual(['id', 'state', 'population', 'notes']);
    expect(JSON.parse(split.content[0]?.text ?? '')).toEqual(split.structuredContent);
    const redeemed = await fetch(result.resource_url ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(redeemed.status).toBe(200);
    expect((await redeemed.json()).body).toEqual([
      { _row_id: 0, id: 1, city: 'Austin', state: 'TX', population: 974447, notes: 'capital' },
      { _row_id: 1, id: 2, city: 'Boston', state: 'MA', population: 675647, notes: 'harbor' },
    ]);
    const again = await fetch(result.resource_url ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(again.status).toBe(404);
    // The same columns again: no new announcement.
    expect(changes).toBe(1);
  });

  it('finds rows in an envelope, in sync mode too', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    await using agent = await httpClient(running.listener.mcpUrl);
    const split = await call(agent.client, 'wrapped', {
      abstract_domains: ['state'],
      mode: 'sync',
    });
    const result = S2SPResultSchema.parse(split.structuredContent);
    expect(result.abstract.map((r) => r.state)).toEqual(['TX', 'MA', 'IL']);
    expect(result.body?.[2]).toEqual({ _row_id: 2, id: 3, city: 'Chicago', population: 2746388 });
    expect(result.resource_url).toBeUndefined();
  });

  it('answers what the host declares in _meta: the compact encoding, the sync body once', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    await using agent = await httpClient(running.listener.mcpUrl);
    const sync = { abstract_domains: 'state', mode: 'sync' };
    const both = await agent.client.callTool({ name: 'wrapped', arguments: sync });
    const once = await agent.client.callTool({
      name: 'wrapped',
      arguments: sync,
      _meta: { [PROTOCOL.syncBodyMeta]: 'structured' },
    });
    expect(once.structuredContent).toEqual(both.structuredContent);
    const { body, ...read } = S2SPResultSchema.parse(both.structuredContent);
    expect(body).toHaveLength(3);
    expect(JSON.parse((once.content as { text: string }[])[0]?.text ?? '')).toEqual(read);
    expect(JSON.parse((both.content as { text: string }[])[0]?.text ?? '')).toEqual({
      ...read,
      body,
    });
    const compact = await agent.client.callTool({
      name: 'wrapped',
      arguments: { abstract_domains: 'state' },
      _meta: { [PROTOCOL.abstractEncodingMeta]: 'compact' },
    });
    const text = JSON.parse((compact.content as { text: string }[])[0]?.text ?? '');
    expect(text.abstract[0]).toEqual([PROTOCOL.rowId, 'state']);
  });

  it('explains a non-table result, an unknown column and a bad abstract_domains', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    await using agent = await httpClient(running.listener.mcpUrl);
    const plain = await call(agent.client, 'plain', { abstract_domains: 'x' });
    expect(plain.isError).toBe(true);
    expect(plain._meta?.['s2sp/error-code']).toBe('invalid_rows');
    expect(plain.content[0]?.text).toContain('without abstract_domains');

    const unknown = await call(agent.client, 'declared', { abstract_domains: 'city,county' });
    expect(unknown.isError).toBe(true);
    expect(unknown._meta?.['s2sp/error-code']).toBe('invalid_request');
    expect(unknown.content[0]?.text).toContain('county');
    expect(unknown.content[0]?.text).toContain('population');

    const bad = await call(agent.client, 'rows', { abstract_domains: 42 });
    expect(bad._meta?.['s2sp/error-code']).toBe('invalid_request');
  });

  it('leaves excluded tools alone, and prefixes S2SP’s abstract_domains where the tool has its own', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      excludeTools: ['rows'],
      tableTools: [{ name: 'own_params' }],
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const { tools } = await allTools(agent.client);
    expect(
      Object.keys(tools.find((t) => t.name === 'own_params')?.inputSchema.properties ?? {}),
    ).toEqual([
      'abstract_domains',
      's2sp_abstract_domains',
      'mode',
      'filter',
      'cursor',
      'abstract_budget_tokens',
      'table',
    ]);
    // Its own abstract_domains goes upstream untouched; mode is S2SP's, so it is not forwarded.
    const own = await call(agent.client, 'own_params', { abstract_domains: 'a,b', mode: 'sync' });
    expect(JSON.parse(own.content[0]?.text ?? '')).toEqual({
      received: { abstract_domains: 'a,b' },
    });
    // An excluded tool is not split: asked to, it says so rather than answer in full.
    const excluded = await call(agent.client, 'rows', { abstract_domains: 'city' });
    expect(excluded._meta?.['s2sp/error-code']).toBe('invalid_request');
    expect(JSON.parse((await call(agent.client, 'rows')).content[0]?.text ?? '')).toHaveLength(3);
  });

  it('takes rows from a configured JSON Pointer', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'wrapped', pointer: '/rows' }],
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const { tools } = await allTools(agent.client);
    expect(tools.find((t) => t.name === 'wrapped')?.inputSchema.properties).toHaveProperty(
      'abstract_domains',
    );
    const split = await call(agent.client, 'wrapped', { abstract_domains: 'city' });
    expect(S2SPResultSchema.parse(split.structuredContent).total_rows).toBe(3);
  });

  it('passes an upstream JSON-RPC error through unchanged', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(TABLE_SERVER);
    const viaProxy = await call(agent.client, 'fail').catch((error: unknown) => error);
    const viaDirect = await call(direct.client, 'fail').catch((error: unknown) => error);
    expect(viaProxy).toMatchObject({ code: -32602 });
    expect(String(viaProxy)).toBe(String(viaDirect));
  });

  it('relays progress, and cancels the upstream request when the caller cancels', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    await using agent = await httpClient(running.listener.mcpUrl);
    const seen: unknown[] = [];
    await agent.client.callTool({ name: 'slow', arguments: { steps: 3, ms: 30 } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    expect(seen[0]).toEqual({ progress: 1, total: 3, message: 'step 1' });
    const controller = new AbortController();
    const pending = agent.client.callTool(
      { name: 'slow', arguments: { steps: 100, ms: 20 } },
      undefined,
      {
        signal: controller.signal,
      },
    );
    setTimeout(() => controller.abort(), 150);
    await expect(pending).rejects.toThrow();
    await expect.poll(() => running.logs.join('')).toContain('slow: cancelled');
  });
});
