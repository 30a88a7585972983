/**
 * What tools look like to clients (and learned columns, per client): output
 * schemas both results satisfy, prefixed S2SP parameters, write tools, the per-client column
 * catalogue, abstract_budget_tokens and the --state file. Every client here is the official SDK
 * `Client` with its default output-schema validation (ajv).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { estimateTokens } from '@s2sp/server';
import { describe, expect, it } from 'vitest';
import { startProxy, stdioClient, TABLE_SERVER, upstreamBin } from './support.js';
import { call, code, listed, s2sp, text } from './table-calls.js';

const TOKENS = ['schema-client-one-0123456789', 'schema-client-two-0123456789'];

async function bearerClient(mcpUrl: string, token: string) {
  const client = new Client({ name: 'schema-test', version: '1' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return { client, changes: () => changes, [Symbol.asyncDispose]: () => client.close() };
}

function memoryServer() {
  const dir = mkdtempSync(join(tmpdir(), 's2sp-memory-'));
  return {
    kind: 'stdio' as const,
    command: process.execPath,
    args: [upstreamBin('@modelcontextprotocol/server-memory', 'dist/index.js')],
    env: { ...process.env, MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } as Record<string, string>,
  };
}

describe('tools with an outputSchema', () => {
  it('server-memory: a plain and an S2SP call pass the SDK client’s validation in one session', async () => {
    const upstream = memoryServer();
    await using running = await startProxy({ upstream });
    await using agent = await bearerClient(running.listener.mcpUrl, 'unused-token-0123456789');
    const { tools } = await agent.client.listTools();
    const create = tools.find((t) => t.name === 'create_entities');
    // A write tool echoing its input is not a table tool: listed as the upstream lists it.
    await using direct = await stdioClient(upstream, upstream.env);
    const upstreamCreate = (await direct.client.listTools()).tools.find(
      (t) => t.name === 'create_entities',
    );
    expect(create).toEqual(upstreamCreate);
    const entities = ['Ada', 'Grace', 'Edsger'].map((name, i) => ({
      name,
      entityType: i === 0 ? 'mathematician' : 'computer scientist',
      observations: [`${name} observation`],
    }));
    const created = await call(agent.client, 'create_entities', { entities });
    expect(created.isError).toBeFalsy();
    // read_graph declares two arrays: as upstream, but with an outputSchema S2SP also fits.
    const plain = await call(agent.client, 'read_graph');
    expect((plain.structuredContent as { entities: unknown[] }).entities).toHaveLength(3);
    await expect.poll(() => agent.changes()).toBe(1);
    // The same session, not listed again: the S2SP result passes the client's validator.
    const split = s2sp(await call(agent.client, 'read_graph', { abstract_domains: 'name' }));
    expect(split.abstract).toEqual([
      { _row_id: 0, name: 'Ada' },
      { _row_id: 1, name: 'Grace' },
      { _row_id: 2, name: 'Edsger' },
    ]);
    expect(split.body_domains).toEqual(['entityType', 'observations']);
    // And a plain call still does.
    expect((await call(agent.client, 'read_graph')).isError).toBeFalsy();
  });

  it('the fixture: a declared table tool lists anyOf(upstream, S2SP) and both results validate', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    await using agent = await bearerClient(running.listener.mcpUrl, 'unused-token-0123456789');
    const tool = await listed(agent.client, 'declared');
    expect(tool?.outputSchema?.type).toBe('object');
    expect(tool?.outputSchema?.anyOf).toHaveLength(2);
    expect((await call(agent.client, 'declared')).isError).toBeFalsy();
    const split = s2sp(await call(agent.client, 'declared', { abstract_domains: 'city' }));
    expect(split.total_rows).toBe(3);
  });
});

describe('S2SP parameter names', () => {
  it('a tool with its own mode gets it untouched; S2SP works through s2sp_mode', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'git_branch' }],
    });
    await using agent = await bearerClient(running.listener.mcpUrl, 'unused-token-0123456789');
    const tool = await listed(agent.client, 'git_branch');
    expect(tool?.inputSchema.properties?.mode).toEqual({
      type: 'string',
      enum: ['local', 'remote', 'all'],
    });
    expect(tool?.inputSchema.properties).toHaveProperty('s2sp_mode');
    expect(tool?.description).toContain("s2sp_mode (S2SP's mode)");
    const plain = JSON.parse(text(await call(agent.client, 'git_branch', { mode: 'remote' })));
    expect(plain.map((row: { mode: string }) => row.mode)).toEqual(['remote', 'remote', 'remote']);
    const split = s2sp(
      await call(agent.client, 'git_branch', {
        mode: 'all',
        abstract_domains: 'name,mode',
        s2sp_mode: 'sync',
      }),
    );
    expect(split.abstract.map((row) => row.mode)).toEqual(['all', 'all', 'all']);
    expect(split.body).toEqual([
      { _row_id: 0, ahead: 0 },
      { _row_id: 1, ahead: 1 },
      { _row_id: 2, ahead: 2 },
    ]);
    expect(split.resource_url).toBeUndefined();
    // s2sp_mode takes S2SP's values only.
    const bad = await call(agent.client, 'git_branch', { s2sp_mode: 'remote' });
    expect(code(bad)).toBe('invalid_request');
  });
});

describe('the column catalogue, per client', () => {
  it('lists columns with token costs after a call, to that client only', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      auth: { bearerTokens: TOKENS },
    });
    await using first = await bearerClient(running.listener.mcpUrl, TOKENS[0] as string);
    await using second = await bearerClient(running.listener.mcpUrl, TOKENS[1] as string);
    await first.client.listTools();
    await second.client.listTools();
    const before = await listed(second.client, 'rows');
    await call(first.client, 'rows');
    await expect.poll(() => first.changes()).toBe(1);
    const mine = await listed(first.client, 'rows');
    expect(mine?.description).toMatch(
      /\(from your earlier calls\): "id" ~\d+, "city" ~\d+, "state" ~\d+, "population" ~\d+, "notes" ~\d+\./,
    );
    expect(mine?.inputSchema.properties).toHaveProperty('abstract_budget_tokens');
    // The other client: no announcement, and its listing is the one it had.
    expect(await listed(second.client, 'rows')).toEqual(before);
    expect(before?.inputSchema.properties).not.toHaveProperty('abstract_domains');
    expect(second.changes()).toBe(0);
  });

  it('abstract_budget_tokens picks the most distinctive columns that fit, and says when none does', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      tableTools: [{ name: 'big' }],
    });
    await using agent = await bearerClient(running.listener.mcpUrl, 'unused-token-0123456789');
    const picked = s2sp(
      await call(agent.client, 'big', { count: 100, abstract_budget_tokens: 1500 }),
    );
    expect(picked.abstract_domains.length).toBeGreaterThan(0);
    // city has 5 values in 100 rows: the least distinctive, so not first.
    expect(picked.abstract_domains[0]).not.toBe('city');
    expect(estimateTokens(JSON.stringify(picked.abstract))).toBeLessThanOrEqual(1500);
    const all = s2sp(
      await call(agent.client, 'big', { count: 100, abstract_budget_tokens: 100_000 }),
    );
    expect(new Set(all.abstract_domains)).toEqual(new Set(['id', 'city', 'population', 'notes']));
    const none = await call(agent.client, 'big', { count: 100, abstract_budget_tokens: 10 });
    expect(none.isError).toBe(true);
    expect(code(none)).toBe('invalid_request');
    expect(text(none)).toMatch(/abstract_budget_tokens of at least [\d,]+/);
    const both = await call(agent.client, 'big', {
      abstract_domains: 'id',
      abstract_budget_tokens: 500,
    });
    expect(code(both)).toBe('invalid_request');
    const bad = await call(agent.client, 'big', { abstract_budget_tokens: 0.5 });
    expect(code(bad)).toBe('invalid_request');
  });
});

describe('--state', () => {
  it('keeps declared tools and each client’s own catalogue across a restart', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 's2sp-state-')), 'state.json');
    const options = { upstream: TABLE_SERVER, auth: { bearerTokens: TOKENS }, stateFile };
    {
      await using running = await startProxy(options);
      await using first = await bearerClient(running.listener.mcpUrl, TOKENS[0] as string);
      await call(first.client, 'rows');
    }
    const saved = JSON.parse(readFileSync(stateFile, 'utf8'));
    expect(saved.declared.declared).toEqual({
      source: 'declared',
      pointer: '/cities',
      columns: ['id', 'city', 'state', 'population', 'notes'],
    });
    // The first token's client, under a keyed hash of the token (never its position).
    const [client] = Object.keys(saved.learned);
    expect(client).toMatch(/^token:/);
    expect(
      saved.learned[client as string].rows.columns.map((c: { name: string }) => c.name),
    ).toEqual(['id', 'city', 'state', 'population', 'notes']);

    await using again = await startProxy(options);
    await using first = await bearerClient(again.listener.mcpUrl, TOKENS[0] as string);
    await using second = await bearerClient(again.listener.mcpUrl, TOKENS[1] as string);
    expect((await listed(first.client, 'rows'))?.description).toMatch(/"id" ~\d+, "city" ~\d+/);
    expect((await listed(second.client, 'rows'))?.inputSchema.properties).not.toHaveProperty(
      'abstract_domains',
    );
  });
});
