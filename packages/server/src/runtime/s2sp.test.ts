import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { S2SPResultSchema } from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { thrownCode } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../logger.js';
import { createS2SP } from './s2sp.js';

const code = thrownCode;

async function connected(mcp: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: 't', version: '1' });
  await client.connect(clientSide);
  return client;
}

const rows = [
  { id: 1, kind: 'a', secret: 'x' },
  { id: 2, kind: 'b', secret: 'y' },
];

describe('createS2SP', () => {
  it('works with no options at all and shares one store across McpServers', async () => {
    const s2sp = createS2SP({ logger: silentLogger, publicUrl: 'https://data.example.com' });
    const servers = [
      new McpServer({ name: 'a', version: '1' }),
      new McpServer({ name: 'b', version: '1' }),
    ];
    for (const mcp of servers)
      s2sp.registerResourceTool(mcp, 'rows', { description: 'r' }, () => rows);
    for (const mcp of servers) {
      const client = await connected(mcp);
      const result = await client.callTool({
        name: 'rows',
        arguments: { abstract_domains: 'kind' },
      });
      expect(S2SPResultSchema.parse(result.structuredContent).resource_url).toMatch(
        /^https:\/\/data\.example\.com\/s2sp\/data\//,
      );
      await client.close();
    }
    expect((await s2sp.store.stats()).entries).toBe(2);
    await s2sp.close();
  });

  it('gives a tool registered on a new McpServer per request one input schema, made once', async () => {
    // zod compiles a schema on its first parse: a new one per request was compiled per call.
    const s2sp = createS2SP({ logger: silentLogger });
    const config = { description: 'r', inputSchema: { area: z.string().optional() } };
    const consumer = { description: 'c', inputSchema: { area: z.string().optional() } };
    const schemas = Array.from({ length: 2 }, () => {
      const mcp = new McpServer({ name: 'a', version: '1' });
      return [
        s2sp.registerResourceTool(mcp, 'rows', config, () => rows).inputSchema,
        s2sp.registerConsumerTool(mcp, 'use', consumer, () => ({ content: [] })).inputSchema,
        s2sp.registerResourceTool(mcp, 'other', { description: 'o' }, () => rows).inputSchema,
      ];
    });
    const [first, second] = schemas as [unknown[], unknown[]];
    expect(second).toEqual(first);
    for (const [i, schema] of first.entries()) expect(second[i]).toBe(schema);
    // Each configuration its own: a consumer's parameters are not a resource tool's.
    expect(new Set(first).size).toBe(3);
    await s2sp.close();
  });

  it('returns the SDK handle, so the user can disable the tool', async () => {
    const s2sp = createS2SP({ logger: silentLogger });
    const mcp = new McpServer({ name: 'a', version: '1' });
    const handle = s2sp.registerResourceTool(mcp, 'rows', { description: 'r' }, () => rows);
    const client = await connected(mcp);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['rows']);
    handle.disable();
    expect((await client.listTools()).tools).toEqual([]);
    await client.close();
    await s2sp.close();
  });

  it('refuses a bad name, a duplicate on one server, and reserved parameters with invalid_config', () => {
    const s2sp = createS2SP({ logger: silentLogger });
    const mcp = new McpServer({ name: 'a', version: '1' });
    expect(
      code(() => s2sp.registerResourceTool(mcp, 'bad name!', { description: 'r' }, () => rows)),
    ).toBe('invalid_config');
    s2sp.registerResourceTool(mcp, 'rows', { description: 'r' }, () => rows);
    expect(
      code(() => s2sp.registerResourceTool(mcp, 'rows', { description: 'r' }, () => rows)),
    ).toBe('invalid_config');
    expect(
      code(() =>
        s2sp.registerConsumerTool(
          mcp,
          'consume',
          { description: 'c', inputSchema: { resource_url: z.string() } },
          () => 'ok',
        ),
      ),
    ).toBe('invalid_config');
    // The same name on another server is fine.
    s2sp.registerResourceTool(
      new McpServer({ name: 'b', version: '1' }),
      'rows',
      { description: 'r' },
      () => rows,
    );
  });

  it('refuses options that cannot work, naming them', () => {
    for (const options of [{ ttlSeconds: 0 }, { maxSyncBytes: -1 }, { publicUrl: 'ftp://x' }]) {
      expect(code(() => createS2SP({ logger: silentLogger, ...options }))).toBe('invalid_config');
    }
  });

  it('closes only a store it created', async () => {
    const store = createMemoryStore();
    await createS2SP({ store, logger: silentLogger }).close();
    expect((await store.stats()).entries).toBe(0);
    await store.put('k', { columns: ['a'], rows: ['{"_row_id":0,"a":1}'] }, { ttlMs: 1000 });
    expect((await store.stats()).entries).toBe(1);
    await store.close();
  });
});

describe('resourceResult', () => {
  const s2sp = createS2SP({ logger: silentLogger });

  it('splits rows a caller already has, trusting a loopback request URL', async () => {
    const result = await s2sp.resourceResult(
      rows,
      { abstract_domains: 'kind' },
      {
        call: { requestInfo: { url: new URL('http://127.0.0.1:4000/mcp') } },
      },
    );
    const parsed = S2SPResultSchema.parse(result.structuredContent);
    expect(parsed.abstract).toEqual([
      { _row_id: 0, kind: 'a' },
      { _row_id: 1, kind: 'b' },
    ]);
    expect(parsed.resource_url).toMatch(/^http:\/\/127\.0\.0\.1:4000\/s2sp\/data\//);
  });

  it('answers plainly without abstract_domains, and with coded tool errors otherwise', async () => {
    expect(await s2sp.resourceResult(rows, {})).toEqual({
      content: [{ type: 'text', text: JSON.stringify(rows) }],
    });
    const cases: [unknown, Record<string, unknown>, string][] = [
      [rows, { abstract_domains: 'nope' }, 'invalid_request'],
      [rows, { abstract_domains: 'kind', mode: 'fast' }, 'invalid_request'],
      ['not a table', { abstract_domains: 'kind' }, 'invalid_rows'],
      // No request URL and no publicUrl: no trusted address for the data plane.
      [rows, { abstract_domains: 'kind' }, 'invalid_config'],
    ];
    for (const [input, args, expected] of cases) {
      const result = await s2sp.resourceResult(input, args);
      expect(result.isError).toBe(true);
      expect(result._meta?.['s2sp/error-code']).toBe(expected);
    }
    expect(
      (await s2sp.resourceResult(rows, { abstract_domains: 'kind', mode: 'sync' })).isError,
    ).toBeUndefined();
  });
});
