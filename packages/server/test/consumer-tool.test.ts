import { generateToken, type RowWithId } from '@s2sp/core';
import { connectMcpClient, startHttpServer, type TestMcpClient, textOf } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createS2SPServer,
  type ListeningServer,
  type S2SPServer,
  silentLogger,
} from '../src/index.js';

const rows = [
  {
    event: 'Wind Advisory',
    severity: 'Moderate',
    description: 'North winds 25 to 35 mph.',
    areaDesc: 'Kern',
  },
  {
    event: 'Heat Advisory',
    severity: 'Minor',
    description: 'Heat index up to 110.',
    areaDesc: 'Travis',
  },
  { event: 'Flood Warning', severity: 'Severe', description: 'Rain.', areaDesc: 'Bexar' },
];

let resource: S2SPServer;
let consumer: S2SPServer;
let resourceListening: ListeningServer;
let consumerListening: ListeningServer;
let agent: TestMcpClient;
let consumerAgent: TestMcpClient;
let received: { rows: RowWithId[]; args: Record<string, unknown> }[] = [];

beforeAll(async () => {
  resource = createS2SPServer({ name: 'resource', version: '1', logger: silentLogger });
  resource.resourceTool('get_alerts', { description: 'alerts' }, () => rows);
  resourceListening = await resource.listen();

  consumer = createS2SPServer({
    name: 'consumer',
    version: '1',
    logger: silentLogger,
    // Loopback resource servers, some started later: this fixture opts out of the default
    // (public destinations only); the tests at the end check the default and the allow-list.
    consumer: { timeoutMs: 300, destinations: 'any' },
  });
  consumer
    .consumerTool(
      'summarise',
      { description: 'Summarise rows.', inputSchema: { title: z.string().optional() } },
      (merged, args) => {
        received.push({ rows: merged, args });
        return `${args.title ?? 'rows'}: ${merged.length}`;
      },
    )
    .consumerTool('as_json', { description: 'Returns an object.' }, (merged) => ({
      count: merged.length,
      ids: merged.map((r) => r._row_id),
    }))
    .consumerTool('as_image', { description: 'Returns an image.' }, () => ({
      content: [
        { type: 'text', text: 'chart' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      ],
    }))
    .consumerTool('throws', { description: 'Fails.' }, () => {
      throw new Error('Chart engine crashed; try fewer rows.');
    });
  consumerListening = await consumer.listen();
  agent = await connectMcpClient(resourceListening.mcpUrl);
  consumerAgent = await connectMcpClient(consumerListening.mcpUrl);
});

afterAll(async () => {
  await agent.close();
  await consumerAgent.close();
  await resource.close();
  await consumer.close();
});

/** The JSON types a property accepts, whether written as `type: [...]` or `anyOf`. */
function typesOf(schema: unknown): string[] {
  const s = (schema ?? {}) as { type?: string | string[]; anyOf?: unknown[] };
  if (s.anyOf) return s.anyOf.flatMap(typesOf);
  return s.type === undefined ? [] : ([] as string[]).concat(s.type);
}

async function abstractAndUrl(domains = 'event,severity') {
  const result = await agent.call('get_alerts', { abstract_domains: domains });
  return result.structuredContent as { abstract: RowWithId[]; resource_url: string };
}

async function summarise(args: Record<string, unknown>) {
  received = [];
  const result = await consumerAgent.call('summarise', args);
  return { result, received: received[0] };
}

describe('consumer tool', () => {
  it('declares its four S2SP parameters as JSON text or the value itself, plus its own', async () => {
    const { tools } = await consumerAgent.client.listTools();
    const tool = tools.find((t) => t.name === 'summarise');
    const properties = tool?.inputSchema.properties ?? {};
    expect(Object.keys(properties)).toEqual([
      'title',
      'abstract_data',
      'resource_url',
      'body_data',
      'column_mapping',
      'row_ids',
      'filter',
    ]);
    const types = (name: string) => typesOf(properties[name]);
    expect(types('title')).toEqual(['string', 'null']);
    expect(types('abstract_data')).toEqual(['string', 'array', 'null']);
    expect(types('resource_url')).toEqual(['string', 'null']);
    expect(types('body_data')).toEqual(['string', 'array', 'null']);
    expect(types('column_mapping')).toEqual(['string', 'object', 'null']);
    expect(types('row_ids')).toEqual(['string', 'array', 'null']);
    expect(types('filter')).toEqual(['string', 'object', 'null']);
    // abstract_data is optional since row_ids and filter can stand in for it (PROTOCOL §7).
    expect(tool?.inputSchema.required ?? []).toEqual([]);
    expect(tool?.description).toMatch(/^Summarise rows\.\n\nS2SP consumer: /);
  });

  it('reads null as absent for every optional parameter, as strict-schema clients send it', async () => {
    const { abstract, resource_url } = await abstractAndUrl();
    const { result, received: got } = await summarise({
      abstract_data: abstract.slice(0, 2),
      resource_url,
      body_data: null,
      column_mapping: null,
      title: null,
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('rows: 2');
    expect(got?.rows.map((row) => row._row_id)).toEqual([0, 1]);
    expect(got?.rows[1]?.description).toBe(rows[1]?.description);
  });

  it('still refuses null for abstract_data, with advice', async () => {
    const { result, received: got } = await summarise({ abstract_data: null });
    expect(result.isError).toBe(true);
    expect((result as { _meta?: Record<string, unknown> })._meta?.['s2sp/error-code']).toBe(
      'invalid_request',
    );
    expect(got).toBeUndefined();
  });

  it('async: fetches the chosen rows from the resource server and merges them in abstract order', async () => {
    const { abstract, resource_url } = await abstractAndUrl();
    const chosen = [abstract[2], abstract[0]];
    const { result, received: got } = await summarise({
      abstract_data: JSON.stringify(chosen),
      resource_url,
      title: 'Alerts',
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Alerts: 2');
    expect(got?.rows).toEqual([
      { _row_id: 2, ...rows[2] },
      { _row_id: 0, ...rows[0] },
    ]);
    expect(got?.args).toEqual({ title: 'Alerts' });
  });

  it('async: a used resource_url becomes a tool error that says to call the resource tool again', async () => {
    const { abstract, resource_url } = await abstractAndUrl();
    await summarise({ abstract_data: JSON.stringify(abstract), resource_url });
    const { result, received: got } = await summarise({
      abstract_data: JSON.stringify(abstract),
      resource_url,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/expired or already used.*Call the resource tool again/);
    expect(got).toBeUndefined();
  });

  it('async: ids the table lacks are an error, not a silent partial merge', async () => {
    const { resource_url } = await abstractAndUrl();
    const { result } = await summarise({
      abstract_data: '[{"_row_id":1},{"_row_id":7}]',
      resource_url,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/The resource_url has no rows with _row_id 7\./);
  });

  it('sync: merges body_data passed inline, with column_mapping, accepting parsed JSON too', async () => {
    const sync = (await agent.call('get_alerts', { abstract_domains: 'event', mode: 'sync' }))
      .structuredContent as { abstract: RowWithId[]; body: RowWithId[] };
    const { result, received: got } = await summarise({
      abstract_data: sync.abstract.slice(1),
      body_data: JSON.stringify(sync.body),
      column_mapping: { areaDesc: 'area' },
    });
    expect(result.isError).toBeFalsy();
    expect(got?.rows).toEqual(
      rows.slice(1).map(({ areaDesc, ...rest }, i) => ({
        _row_id: i + 1,
        event: rest.event,
        severity: rest.severity,
        description: rest.description,
        area: areaDesc,
      })),
    );
  });

  it('abstract only: hands over the abstract rows as they are', async () => {
    const { result, received: got } = await summarise({
      abstract_data: '[{"_row_id":0,"event":"x"}]',
    });
    expect(result.isError).toBeFalsy();
    expect(got?.rows).toEqual([{ _row_id: 0, event: 'x' }]);
  });

  it('no rows: does not fetch (an empty row_ids would mean all rows) and leaves the token unused', async () => {
    const { abstract, resource_url } = await abstractAndUrl();
    const { received: got } = await summarise({ abstract_data: '[]', resource_url });
    expect(got?.rows).toEqual([]);
    const { received: again } = await summarise({
      abstract_data: JSON.stringify(abstract),
      resource_url,
    });
    expect(again?.rows).toHaveLength(3);
  });

  it.each([
    [
      { abstract_data: '[{"event":"x"}]' },
      /abstract_data\[0\] needs an integer "_row_id" but it has none/,
    ],
    [{ abstract_data: 'not json' }, /abstract_data is not valid JSON/],
    [
      { abstract_data: '[]', resource_url: 'http://x/s2sp/data/t', body_data: '[]' },
      /either resource_url .* or body_data .*, not both/,
    ],
    [{ abstract_data: '[{"_row_id":0}]', column_mapping: '{"_row_id":"id"}' }, /cannot rename/],
    [
      { abstract_data: '[{"_row_id":0}]', resource_url: 'ddi://abc' },
      /ddi:\/\/ handle.*@s2sp\/client/,
    ],
    [
      { abstract_data: '[{"_row_id":0}]', resource_url: 'http://127.0.0.1:1/other/path' },
      /its path is not \/s2sp\/data\//,
    ],
  ])('rejects %j with advice', async (args, message) => {
    const { result, received: got } = await summarise(args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
    expect(got).toBeUndefined();
  });

  it('requires abstract_data', async () => {
    const result = await consumerAgent.call('summarise', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/abstract_data/);
  });

  it('returns objects as JSON text with structuredContent, and MCP content as given', async () => {
    const json = await consumerAgent.call('as_json', {
      abstract_data: '[{"_row_id":4},{"_row_id":1}]',
    });
    expect(JSON.parse(textOf(json))).toEqual({ count: 2, ids: [4, 1] });
    expect(json.structuredContent).toEqual({ count: 2, ids: [4, 1] });
    const image = await consumerAgent.call('as_image', { abstract_data: '[]' });
    expect(image.content).toEqual([
      { type: 'text', text: 'chart' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ]);
  });

  it("returns the handler's own error", async () => {
    const result = await consumerAgent.call('throws', { abstract_data: '[]' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Chart engine crashed; try fewer rows.');
  });

  it('times out a resource server that does not answer', async () => {
    const silent = await startHttpServer(() => {});
    try {
      const started = Date.now();
      const { result } = await summarise({
        abstract_data: '[{"_row_id":0}]',
        resource_url: `${silent.url}/s2sp/data/${generateToken()}`,
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/did not answer within 300 ms/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      await silent.close();
    }
  });
});

describe('consumer allow-list', () => {
  it('fetches only from allowed origins, before opening any connection', async () => {
    const guarded = createS2SPServer({
      name: 'guarded',
      version: '1',
      logger: silentLogger,
      consumer: { allowedOrigins: ['https://data.example.com'] },
    });
    guarded.consumerTool('count', { description: 'count' }, (merged) => String(merged.length));
    await using listening = await guarded.listen();
    await using client = await connectMcpClient(listening.mcpUrl);
    const entriesBefore = (await resource.store.stats()).entries;
    const { abstract, resource_url } = await abstractAndUrl();
    const result = await client.call('count', {
      abstract_data: JSON.stringify(abstract),
      resource_url,
    });
    expect(result.isError).toBe(true);
    expect((result as { _meta?: Record<string, unknown> })._meta?.['s2sp/error-code']).toBe(
      'forbidden',
    );
    // The entry is still there: nothing was fetched.
    expect((await resource.store.stats()).entries).toBe(entriesBefore + 1);
    await guarded.close();
  });
});

describe('consumer public-destinations-only mode (the default)', () => {
  it('refuses a resource_url on a loopback address, with advice', async () => {
    const guarded = createS2SPServer({
      name: 'public-only',
      version: '1',
      logger: silentLogger,
    });
    guarded.consumerTool('count', { description: 'count' }, (merged) => String(merged.length));
    await using listening = await guarded.listen();
    await using client = await connectMcpClient(listening.mcpUrl);
    const entriesBefore = (await resource.store.stats()).entries;
    const { abstract, resource_url } = await abstractAndUrl();
    const result = await client.call('count', {
      abstract_data: JSON.stringify(abstract),
      resource_url,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/non-public address .*allow-list that origin/);
    expect(textOf(result)).not.toMatch(/127\.0\.0\.1/);
    expect((await resource.store.stats()).entries).toBe(entriesBefore + 1);
    await guarded.close();
  });
});

describe('s2sp.resolveConsumerRows', () => {
  it('resolves a row_ids hand-off outside a tool call, as a consumer tool would', async () => {
    const { resource_url } = await abstractAndUrl();
    const { rows: resolved, info } = await consumer.s2sp.resolveConsumerRows({
      resource_url,
      row_ids: [2, 0],
      column_mapping: { areaDesc: 'area' },
    });
    expect(resolved).toEqual([
      {
        _row_id: 2,
        event: 'Flood Warning',
        severity: 'Severe',
        description: 'Rain.',
        area: 'Bexar',
      },
      {
        _row_id: 0,
        event: 'Wind Advisory',
        severity: 'Moderate',
        description: 'North winds 25 to 35 mph.',
        area: 'Kern',
      },
    ]);
    expect(info).toEqual({ abstractColumns: [], bodySource: 'resource_url' });
  });

  it('merges abstract_data and reports its columns as abstract', async () => {
    const { abstract, resource_url } = await abstractAndUrl('event');
    const { rows: resolved, info } = await consumer.s2sp.resolveConsumerRows({
      abstract_data: JSON.stringify(abstract.slice(1)),
      resource_url,
    });
    expect(resolved.map((r) => [r._row_id, r.event, r.description])).toEqual([
      [1, 'Heat Advisory', 'Heat index up to 110.'],
      [2, 'Flood Warning', 'Rain.'],
    ]);
    expect(info).toEqual({ abstractColumns: ['event'], bodySource: 'resource_url' });
  });

  it('hands over a whole table only when asked with wholeTable, fetching it once', async () => {
    const { resource_url } = await abstractAndUrl();
    await expect(consumer.s2sp.resolveConsumerRows({ resource_url })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/abstract_data is required/),
    });
    // The refusal came before the fetch: the resource_url still works.
    const whole = await consumer.s2sp.resolveConsumerRows({ resource_url }, { wholeTable: true });
    expect(whole.rows.map((r) => [r._row_id, r.severity])).toEqual([
      [0, 'Moderate'],
      [1, 'Minor'],
      [2, 'Severe'],
    ]);
    expect(whole.info).toEqual({ abstractColumns: [], bodySource: 'resource_url' });
    await expect(
      consumer.s2sp.resolveConsumerRows({ resource_url }, { wholeTable: true }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('takes every body_data row with wholeTable, and still refuses a call with no source', async () => {
    const body = [
      { _row_id: 0, x: 1 },
      { _row_id: 1, x: 2 },
    ];
    const whole = await consumer.s2sp.resolveConsumerRows(
      { body_data: JSON.stringify(body) },
      { wholeTable: true },
    );
    expect(whole).toEqual({ rows: body, info: { abstractColumns: [], bodySource: 'body_data' } });
    await expect(consumer.s2sp.resolveConsumerRows({}, { wholeTable: true })).rejects.toMatchObject(
      { code: 'invalid_request', message: /resource_url is required/ },
    );
  });

  it('follows the allow-list and the abort signal', async () => {
    const guarded = createS2SPServer({
      name: 'guarded-resolve',
      version: '1',
      logger: silentLogger,
      consumer: { allowedOrigins: ['https://data.example.com'] },
    });
    const { resource_url } = await abstractAndUrl();
    await expect(
      guarded.s2sp.resolveConsumerRows({ resource_url }, { wholeTable: true }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    const aborted = new AbortController();
    aborted.abort();
    await expect(
      consumer.s2sp.resolveConsumerRows(
        { resource_url },
        { wholeTable: true, signal: aborted.signal },
      ),
    ).rejects.toMatchObject({ code: 'upstream_error', message: /cancel/ });
    await guarded.close();
  });

  it('shares the server-wide fetch limit with the consumer tools', async () => {
    const limited = createS2SPServer({
      name: 'limited',
      version: '1',
      logger: silentLogger,
      consumer: { destinations: 'any', maxConcurrentFetches: 1, maxQueuedFetches: 0 },
    });
    const urls = await Promise.all([abstractAndUrl(), abstractAndUrl()]);
    const settled = await Promise.allSettled(
      urls.map(({ resource_url }) =>
        limited.s2sp.resolveConsumerRows({ resource_url }, { wholeTable: true }),
      ),
    );
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = settled.find((s) => s.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'unavailable' });
    await limited.close();
  });
});
