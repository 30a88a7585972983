import { isTokenShape, S2SPResultSchema } from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { codeAndDataOf, connectMcpClient, type TestMcpClient, textOf } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createS2SPServer,
  type ListeningServer,
  type S2SPServer,
  silentLogger,
} from '../src/index.js';

const alerts = [
  {
    id: 'a1',
    event: 'Wind Advisory',
    severity: 'Moderate',
    areaDesc: 'Kern; Tulare',
    description: 'North winds 25 to 35 mph.',
  },
  {
    id: 'a2',
    event: 'Heat Advisory',
    severity: 'Minor',
    description: 'Heat index up to 110.',
    geocode: { UGC: ['TXZ192'] },
  },
  { id: 'a3', event: 'Flood Warning', severity: 'Severe', areaDesc: 'Travis' },
];

/** The JSON types a property accepts, whether written as `type: [...]` or `anyOf`. */
function typesOf(schema: unknown): string[] {
  const s = (schema ?? {}) as { type?: string | string[]; anyOf?: unknown[] };
  if (s.anyOf) return s.anyOf.flatMap(typesOf);
  return s.type === undefined ? [] : ([] as string[]).concat(s.type);
}

let server: S2SPServer;
let listening: ListeningServer;
let agent: TestMcpClient;
let calls = 0;
const unitsSeen: unknown[] = [];

beforeAll(async () => {
  server = createS2SPServer({
    name: 'resource-test',
    version: '1.0.0',
    logger: silentLogger,
    ttlSeconds: 120,
  });
  server
    .resourceTool(
      'get_alerts',
      {
        description: 'Active weather alerts for an area.',
        inputSchema: {
          area: z.string().describe('Two-letter area code'),
          units: z.enum(['us', 'si']).optional(),
        },
        rowSchema: z.object({
          id: z.string(),
          event: z.string().describe('alert type'),
          severity: z.string(),
          areaDesc: z.string(),
          description: z.string(),
          geocode: z.unknown(),
        }),
        annotations: { readOnlyHint: true },
      },
      async ({ area, units }) => {
        calls++;
        unitsSeen.push(units);
        if (area === 'XX')
          throw new Error('Area XX is not a valid NWS area code. Use a state code such as TX.');
        return area === 'EMPTY' ? [] : alerts;
      },
    )
    .resourceTool('bad_rows', { description: 'Returns reserved columns.' }, () => [
      { _row_id: 5, a: 1 },
    ])
    .resourceTool(
      'not_a_table',
      { description: 'Returns an object.' },
      () => ({ rows: [] }) as unknown as object[],
    )
    .resourceTool('big', { description: 'A large table.' }, () =>
      Array.from({ length: 200 }, (_, i) => ({ i, text: 'x'.repeat(1000) })),
    );
  listening = await server.listen();
  agent = await connectMcpClient(listening.mcpUrl);
});

afterAll(async () => {
  await agent.close();
  await server.close();
});

describe('resource tool over Streamable HTTP', () => {
  it('lists abstract_domains and mode, the S2SP instructions and the declared columns', async () => {
    const { tools } = await agent.client.listTools();
    const tool = tools.find((t) => t.name === 'get_alerts');
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual([
      'area',
      'units',
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
    ]);
    expect(tool?.inputSchema.required).toEqual(['area']);
    expect(tool?.description).toMatch(/^Active weather alerts for an area\.\n\nS2SP: /);
    expect(tool?.description).toMatch(/FEW columns/);
    expect(tool?.description).toMatch(/works once and expires after 2 minutes/);
    expect(tool?.description).toContain(
      'Columns: id, event (alert type), severity, areaDesc, description, geocode.',
    );
    expect(tool?.annotations?.readOnlyHint).toBe(true);
  });

  it('reads null as absent for abstract_domains, mode and optional own parameters', async () => {
    const { tools } = await agent.client.listTools();
    const properties = tools.find((t) => t.name === 'get_alerts')?.inputSchema.properties ?? {};
    expect(typesOf(properties.abstract_domains)).toEqual(['string', 'array', 'null']);
    expect(typesOf(properties.mode)).toEqual(['string', 'null']);
    expect(typesOf(properties.units)).toEqual(['string', 'null']);

    const plain = await agent.call('get_alerts', {
      area: 'CA',
      abstract_domains: null,
      mode: null,
      units: null,
    });
    expect(plain.isError).toBeFalsy();
    expect(JSON.parse(textOf(plain))).toEqual(alerts);
    const split = await agent.call('get_alerts', {
      area: 'CA',
      abstract_domains: ['event'],
      mode: 'sync',
      units: null,
    });
    expect(split.isError).toBeFalsy();
    expect(split.structuredContent).toMatchObject({ total_rows: 3, abstract_domains: ['event'] });
    expect(unitsSeen).toContain(undefined);
  });

  it('still refuses null for a required parameter', async () => {
    const result = await agent.call('get_alerts', { area: null, mode: null });
    expect(result.isError).toBe(true);
  });

  it('without abstract_domains is a plain MCP tool: the JSON rows, nothing cached', async () => {
    for (const args of [
      { area: 'CA' },
      { area: 'CA', abstract_domains: '' },
      { area: 'CA', abstract_domains: [] },
    ]) {
      const result = await agent.call('get_alerts', args);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toBeUndefined();
      expect(result.content).toHaveLength(1);
      expect(JSON.parse(textOf(result))).toEqual(alerts);
    }
    expect((await server.store.stats()).entries).toBe(0);
  });

  it('in async mode returns the abstract and a single-use resource_url, and caches the full rows', async () => {
    const before = Date.now();
    const result = await agent.call('get_alerts', {
      area: 'CA',
      abstract_domains: 'event, severity',
    });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).not.toMatch(/\n/);
    const object = S2SPResultSchema.parse(JSON.parse(text));
    expect(result.structuredContent).toEqual(JSON.parse(text));
    expect(Object.keys(object)).toEqual([
      'total_rows',
      'abstract_domains',
      'body_domains',
      'abstract',
      'resource_url',
      'expires_at',
    ]);
    expect(object).toMatchObject({
      total_rows: 3,
      abstract_domains: ['event', 'severity'],
      body_domains: ['id', 'areaDesc', 'description', 'geocode'],
      abstract: [
        { _row_id: 0, event: 'Wind Advisory', severity: 'Moderate' },
        { _row_id: 1, event: 'Heat Advisory', severity: 'Minor' },
        { _row_id: 2, event: 'Flood Warning', severity: 'Severe' },
      ],
    });
    const match = /^http:\/\/127\.0\.0\.1:(\d+)\/s2sp\/data\/(.+)$/.exec(object.resource_url ?? '');
    expect(Number(match?.[1])).toBe(listening.port);
    expect(isTokenShape(match?.[2])).toBe(true);
    // Whole seconds, rounded down: never later than the entry's real expiry.
    expect(object.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const expires = Date.parse(object.expires_at ?? '');
    expect(expires).toBeGreaterThan(before + 120_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 120_000);
    expect(text).not.toContain('North winds');

    const response = await fetch(object.resource_url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"row_ids":[1]}',
    });
    expect(await response.json()).toEqual({
      body: [{ _row_id: 1, ...alerts[1] }],
      total_rows: 1,
      columns_returned: [
        '_row_id',
        'id',
        'event',
        'severity',
        'areaDesc',
        'description',
        'geocode',
      ],
    });
  });

  it('in sync mode returns the body inline and caches nothing', async () => {
    const entries = (await server.store.stats()).entries;
    const result = await agent.call('get_alerts', {
      area: 'CA',
      abstract_domains: '["event"]',
      mode: 'sync',
    });
    const object = S2SPResultSchema.parse(result.structuredContent);
    expect(Object.keys(object)).toEqual([
      'total_rows',
      'abstract_domains',
      'body_domains',
      'abstract',
      'body',
    ]);
    expect(object.body).toEqual(
      alerts.map(({ event: _event, ...rest }, i) => ({ _row_id: i, ...rest })),
    );
    expect((await server.store.stats()).entries).toBe(entries);
  });

  it('names unknown columns and lists the available ones', async () => {
    const result = await agent.call('get_alerts', {
      area: 'CA',
      abstract_domains: 'event,Severity,colour',
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /Unknown abstract_domains columns: "Severity", "colour"\. Did you mean "Severity" → "severity"\? Available columns: "id", "event", "severity", "areaDesc", "description", "geocode"\./,
    );
  });

  it('accepts any abstract columns for an empty table, and caches nothing for it', async () => {
    const before = (await server.store.stats()).entries;
    for (const mode of [undefined, 'async', 'sync']) {
      const result = await agent.call('get_alerts', {
        area: 'EMPTY',
        abstract_domains: 'anything',
        ...(mode && { mode }),
      });
      expect(result.isError).toBeFalsy();
      // Zero rows: the empty body inline, no resource_url (packages/core/PROTOCOL.md §2): empty entries would let one client fill the store for free.
      expect(result.structuredContent).toEqual({
        total_rows: 0,
        abstract_domains: ['anything'],
        body_domains: [],
        abstract: [],
        body: [],
      });
    }
    expect((await server.store.stats()).entries).toBe(before);
  });

  it('still caches a one-row async result (the good case beside the empty one)', async () => {
    const before = (await server.store.stats()).entries;
    const result = await agent.call('get_alerts', { area: 'CA', abstract_domains: 'event' });
    expect(result.structuredContent).toHaveProperty('resource_url');
    expect((await server.store.stats()).entries).toBe(before + 1);
  });

  it('rejects a mode other than async or sync', async () => {
    const result = await agent.call('get_alerts', {
      area: 'CA',
      abstract_domains: 'event',
      mode: 'fast',
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/"async"\|"sync"/);
  });

  it('reports malformed abstract_domains with both accepted forms', async () => {
    const result = await agent.call('get_alerts', { area: 'CA', abstract_domains: '["event"' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/comma-separated string.*JSON array/);
  });

  it("returns a handler's error as a tool error and keeps serving", async () => {
    const failed = await agent.call('get_alerts', { area: 'XX', abstract_domains: 'event' });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe(
      'Area XX is not a valid NWS area code. Use a state code such as TX.',
    );
    expect((await agent.call('get_alerts', { area: 'CA' })).isError).toBeFalsy();
  });

  it('refuses rows that already carry _row_id and results that are not tables', async () => {
    const reserved = await agent.call('bad_rows', { abstract_domains: 'a' });
    expect(reserved.isError).toBe(true);
    expect(textOf(reserved)).toMatch(/already has a "_row_id" column/);
    const plain = await agent.call('bad_rows');
    expect(plain.isError).toBe(true);
    const notTable = await agent.call('not_a_table');
    expect(textOf(notTable)).toMatch(
      /must return an array of row objects, but it returned an object/,
    );
  });

  it('runs the handler once per call', async () => {
    const before = calls;
    await agent.call('get_alerts', { area: 'CA', abstract_domains: 'event' });
    expect(calls).toBe(before + 1);
  });
});

describe('resource tool limits and configuration', () => {
  it('refuses a sync result too large to travel through the agent, suggesting async', async () => {
    const small = createS2SPServer({
      name: 'small',
      version: '1',
      logger: silentLogger,
      maxSyncBytes: 50_000,
    });
    small.resourceTool('big', { description: 'big' }, () =>
      Array.from({ length: 200 }, (_, i) => ({ i, text: 'x'.repeat(1000) })),
    );
    await using listening = await small.listen();
    await using client = await connectMcpClient(listening.mcpUrl);
    const result = await client.call('big', { abstract_domains: 'i', mode: 'sync' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /sync-mode result is \d+ bytes, over the 50000.*without mode \(async mode/,
    );
    expect((await client.call('big', { abstract_domains: 'i' })).isError).toBeFalsy();
    await small.close();
  });

  it('turns a full cache into a tool error and never evicts live entries', async () => {
    const store = createMemoryStore({ maxBytes: 300_000 });
    const tight = createS2SPServer({ name: 'tight', version: '1', logger: silentLogger, store });
    tight.resourceTool('big', { description: 'big' }, () =>
      Array.from({ length: 200 }, (_, i) => ({ i, text: 'x'.repeat(1000) })),
    );
    await using listening = await tight.listen();
    await using client = await connectMcpClient(listening.mcpUrl);
    const first = await client.call('big', { abstract_domains: 'i' });
    expect(first.isError).toBeFalsy();
    const second = await client.call('big', { abstract_domains: 'i' });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toMatch(/S2SP cache is full.*Retry in a few minutes/);
    const url = (first.structuredContent as { resource_url: string }).resource_url;
    expect(
      (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(200);
    await tight.close();
    await store.close();
  });

  it('advertises publicUrl, keeping its path prefix', async () => {
    const proxied = createS2SPServer({
      name: 'p',
      version: '1',
      logger: silentLogger,
      publicUrl: 'https://data.example.com/weather/',
    });
    proxied.resourceTool('t', { description: 't' }, () => [{ a: 1, b: 2 }]);
    await using listening = await proxied.listen();
    await using client = await connectMcpClient(listening.mcpUrl);
    const result = await client.call('t', { abstract_domains: 'a' });
    expect((result.structuredContent as { resource_url: string }).resource_url).toMatch(
      /^https:\/\/data\.example\.com\/weather\/s2sp\/data\/[A-Za-z0-9_-]{43}$/,
    );
    await proxied.close();
  });

  it('never takes the advertised base from an untrusted Host header', async () => {
    const make = (allowedHosts?: string[]) =>
      createS2SPServer({
        name: 'h',
        version: '1',
        logger: silentLogger,
        trustedHosts: ['api.example.com'],
        ...(allowedHosts && { allowedHosts }),
      }).resourceTool('t', { description: 't' }, () => [{ a: 1, b: 2 }]);
    const inProcess = make();
    // With the edge's Host check off, the resource tool's own rule is what stops the host.
    const hostCheckOff = make(['*']);
    const request = (server: ReturnType<typeof make>, host: string) =>
      server.app.request(`http://${host}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 't', arguments: { abstract_domains: 'a' } },
        }),
      });
    const refused = await request(inProcess, 'evil.example:8080');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    const call = async (host: string, server = inProcess) => {
      const response = await request(server, host);
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      return (
        (await response.json()) as {
          result: {
            isError?: boolean;
            content: { text: string }[];
            _meta?: Record<string, unknown>;
          };
        }
      ).result;
    };
    const untrusted = await call('evil.example:8080', hostCheckOff);
    expect(untrusted.isError).toBe(true);
    expect(untrusted._meta?.['s2sp/error-code']).toBe('invalid_config');
    expect(untrusted.content[0]?.text).not.toContain('evil.example/');
    expect((await inProcess.store.stats()).entries).toBe(0);
    const trusted = await call('api.example.com');
    expect(JSON.parse(trusted.content[0]?.text ?? '').resource_url).toMatch(
      /^http:\/\/api\.example\.com\/s2sp\/data\//,
    );
    await inProcess.close();
    await hostCheckOff.close();
  });

  it('refuses reserved parameter names, duplicate and invalid tool names, and bad options', () => {
    const s = createS2SPServer({ name: 'r', version: '1', logger: silentLogger });
    expect(() =>
      s.resourceTool('t', { description: 'x', inputSchema: { mode: z.string() } }, () => []),
    ).toThrow(/declares "mode", which S2SP adds/);
    expect(() =>
      s.consumerTool(
        'c',
        { description: 'x', inputSchema: { resource_url: z.string() } },
        () => '',
      ),
    ).toThrow(/declares "resource_url"/);
    s.resourceTool('ok', { description: 'x' }, () => []);
    expect(() => s.consumerTool('ok', { description: 'x' }, () => '')).toThrow(
      /already registered/,
    );
    expect(() => s.resourceTool('has space', { description: 'x' }, () => [])).toThrow(/not valid/);
    for (const [options, option] of [
      [{ name: '', version: '1' }, 'name'],
      [{ name: 'x', version: '1', ttlSeconds: 0 }, 'ttlSeconds'],
      [{ name: 'x', version: '1', publicUrl: 'ftp://x' }, 'publicUrl'],
    ] as const) {
      expect(codeAndDataOf(() => createS2SPServer(options))).toEqual([
        'invalid_config',
        { option },
      ]);
    }
  });

  it('says which port is taken', async () => {
    const a = createS2SPServer({ name: 'a', version: '1', logger: silentLogger });
    expect(a.advertisedUrl()).toBeUndefined();
    const first = await a.listen();
    expect(a.advertisedUrl()).toBe(first.url);
    const b = createS2SPServer({ name: 'b', version: '1', logger: silentLogger });
    await expect(b.listen({ port: first.port })).rejects.toThrow(
      `port ${first.port} is already in use`,
    );
    await a.close();
    await b.close();
  });
});
