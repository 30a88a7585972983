import { type RowWithId, S2SPResultSchema } from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import {
  connectMcpClient,
  type TestMcpClient,
  type ToolResult,
  textOf,
  thrownCode,
} from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createS2SPServer,
  type ListeningServer,
  type S2SPServer,
  silentLogger,
} from '../src/index.js';
import { estimateTokens } from '../src/resource/token-estimate.js';

const EVENTS = ['Flood Warning', 'Wind Advisory', 'Heat Advisory', 'Flash Flood Watch', 'Frost'];
const SEVERITIES = ['Minor', 'Moderate', 'Severe', 'Extreme'];
const ROWS = 500;
const table = Array.from({ length: ROWS }, (_, i) => ({
  id: `alert-${i}`,
  event: EVENTS[i % EVENTS.length],
  severity: SEVERITIES[i % SEVERITIES.length],
  magnitude: i % 10,
  description: `Long text ${i} `.repeat(20),
}));
const rowSchema = z.object({
  id: z.string(),
  event: z.string().describe('alert type'),
  severity: z.string(),
  magnitude: z.number(),
  description: z.string(),
});
const BUDGET = 800;

let server: S2SPServer;
let compact: S2SPServer;
let listening: ListeningServer;
let compactListening: ListeningServer;
let agent: TestMcpClient;
let compactAgent: TestMcpClient;
let calls = 0;
let consumed: RowWithId[] = [];

const errorCode = (result: ToolResult) =>
  (result as { _meta?: Record<string, unknown> })._meta?.['s2sp/error-code'];

function build(options: { abstractEncoding?: 'compact' } = {}): S2SPServer {
  return createS2SPServer({
    name: 'large',
    version: '1',
    logger: silentLogger,
    tokenBudget: BUDGET,
    toolGuidance: 'instructions',
    consumer: { destinations: 'any' }, // the resource server is on loopback
    ...options,
  })
    .resourceTool('get_table', { description: 'A large table.', rowSchema }, () => {
      calls++;
      return table;
    })
    .resourceTool(
      'get_table_roomy',
      { description: 'The same table, with a larger budget.', tokenBudget: 4000 },
      () => table,
    )
    .resourceTool('get_same_rows', { description: 'The same rows again.', rowSchema }, () => table)
    .resourceTool(
      'own_filter',
      { description: 'Declares its own filter.', inputSchema: { filter: z.string().optional() } },
      () => table,
    )
    .consumerTool('consume', { description: 'Takes rows.' }, (rows) => {
      consumed = rows;
      return { rows: rows.length };
    });
}

beforeAll(async () => {
  server = build();
  compact = build({ abstractEncoding: 'compact' });
  listening = await server.listen();
  compactListening = await compact.listen();
  agent = await connectMcpClient(listening.mcpUrl);
  compactAgent = await connectMcpClient(compactListening.mcpUrl);
});

afterAll(async () => {
  await agent.close();
  await compactAgent.close();
  await server.close();
  await compact.close();
});

async function call(name: string, args: Record<string, unknown>) {
  const result = await agent.call(name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  return { result, object: S2SPResultSchema.parse(JSON.parse(textOf(result))) };
}

describe('paging a large abstract', () => {
  it('returns what fits the budget, a profile and next_cursor; cursors reach every row once', async () => {
    calls = 0;
    const first = await call('get_table', { abstract_domains: 'event,severity,magnitude' });
    expect(estimateTokens(textOf(first.result))).toBeLessThanOrEqual(BUDGET);
    expect(first.object.total_rows).toBe(ROWS);
    expect(first.object.abstract.length).toBeLessThan(ROWS);
    expect(first.object.profile).toEqual({
      event: { distinct: 5, top: Object.fromEntries(EVENTS.map((e) => [e, 100])) },
      severity: { distinct: 4, top: Object.fromEntries(SEVERITIES.map((s) => [s, 125])) },
      magnitude: { min: 0, max: 9 },
    });
    const ids = first.object.abstract.map((row) => row._row_id);
    let cursor = first.object.next_cursor;
    let pages = 1;
    while (typeof cursor === 'string') {
      const page = await call('get_table', { cursor });
      expect(estimateTokens(textOf(page.result))).toBeLessThanOrEqual(BUDGET);
      expect(page.object.resource_url).toBe(first.object.resource_url);
      expect(page.object.expires_at).toBe(first.object.expires_at);
      expect(page.object.profile).toBeUndefined();
      ids.push(...page.object.abstract.map((row) => row._row_id));
      cursor = page.object.next_cursor;
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
    expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => i));
    expect(calls).toBe(1);

    // Paging never used up the resource_url: the data plane still serves the whole table once.
    const url = first.object.resource_url as string;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { body: unknown[] }).body).toHaveLength(ROWS);
  });

  it('hands each page out once, and refuses what is not a cursor', async () => {
    const first = await call('get_table', { abstract_domains: 'event' });
    const cursor = first.object.next_cursor as string;
    await call('get_table', { cursor });
    const again = await agent.call('get_table', { cursor });
    expect(again.isError).toBe(true);
    expect(errorCode(again)).toBe('not_found');
    const forged = await agent.call('get_table', { cursor: `${cursor.slice(0, -1)}x` });
    expect(errorCode(forged)).toBe('invalid_request');
    // Not a string at all: the tool's input schema refuses it before S2SP sees it.
    const other = await agent.call('get_table', { cursor: 42 });
    expect(other.isError).toBe(true);
  });

  it('refuses a tool budget or server budget that is not a positive integer', () => {
    const make = (tokenBudget: number) =>
      thrownCode(() =>
        createS2SPServer({ name: 'x', version: '1', logger: silentLogger }).resourceTool(
          'bad',
          { description: 'x', tokenBudget },
          () => [],
        ),
      );
    expect(make(0)).toBe('invalid_config');
    expect(make(1.5)).toBe('invalid_config');
    expect(
      thrownCode(() =>
        createS2SPServer({ name: 'x', version: '1', logger: silentLogger, tokenBudget: -1 }),
      ),
    ).toBe('invalid_config');
  });
});

describe('filter on abstract columns', () => {
  it('returns only matching rows, with matched_rows; the resource_url covers the whole table', async () => {
    const { object } = await call('get_table_roomy', {
      abstract_domains: 'event,severity,magnitude',
      filter: '{"event":{"contains":"flood"},"severity":["Severe","extreme"],"magnitude":{"lt":2}}',
    });
    const expected = table
      .map((row, i) => ({ ...row, _row_id: i }))
      .filter(
        (row) =>
          row.event?.includes('Flood') &&
          /Severe|Extreme/.test(row.severity ?? '') &&
          row.magnitude < 2,
      );
    expect(expected.length).toBeGreaterThan(5);
    expect(object.matched_rows).toBe(expected.length);
    expect(object.total_rows).toBe(ROWS);
    expect(object.abstract.map((row) => row._row_id)).toEqual(expected.map((row) => row._row_id));
    expect(object.next_cursor).toBeUndefined();
    expect(Object.keys(object)).toEqual([
      'total_rows',
      'abstract_domains',
      'body_domains',
      'abstract',
      'resource_url',
      'expires_at',
      'matched_rows',
    ]);
  });

  it.each([
    [{ abstract_domains: 'event', filter: { description: 'x' } }, 'invalid_request'],
    [{ filter: { event: 'Frost' } }, 'invalid_request'],
    [{ abstract_domains: 'event', filter: { event: { like: 'x' } } }, 'invalid_request'],
    [{ abstract_domains: 'event', filter: '{oops' }, 'invalid_request'],
  ])('refuses %j before running the handler', async (args, code) => {
    calls = 0;
    const result = await agent.call('get_table', args);
    expect(result.isError).toBe(true);
    expect(errorCode(result)).toBe(code);
    expect(calls).toBe(0);
  });

  it('in sync mode filters the abstract and the body alike', async () => {
    const { object } = await call('get_table_roomy', {
      abstract_domains: 'event',
      filter: { event: 'Frost' },
      mode: 'sync',
    });
    expect(object.abstract).toHaveLength(100);
    expect(object.body?.map((row) => row._row_id)).toEqual(object.abstract.map((r) => r._row_id));
  });

  it('leaves a tool that declares its own filter alone', async () => {
    const { tools } = await agent.client.listTools();
    const tool = tools.find((t) => t.name === 'own_filter');
    // The tool's own optional parameter, as declared (null accepted as absent, as for every one).
    expect(tool?.inputSchema.properties?.filter).toEqual({ type: ['string', 'null'] });
    const result = await agent.call('own_filter', { abstract_domains: 'event', filter: 'mine' });
    expect(result.isError).toBeFalsy();
  });
});

describe('consumer hand-off without re-writing rows', () => {
  it('takes row_ids with the resource_url, in the order given, with every column', async () => {
    const { object } = await call('get_table', { abstract_domains: 'event' });
    const result = await agent.call('consume', {
      resource_url: object.resource_url,
      row_ids: '[7, 3]',
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(consumed).toEqual([
      { _row_id: 7, ...table[7] },
      { _row_id: 3, ...table[3] },
    ]);
  });

  it('takes the same filter with the resource_url', async () => {
    const { object } = await call('get_table', {
      abstract_domains: 'event',
      filter: { event: 'frost' },
    });
    const result = await agent.call('consume', {
      resource_url: object.resource_url,
      filter: { event: 'frost' },
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(consumed).toHaveLength(object.matched_rows as number);
    expect(consumed.map((row) => row._row_id)).toEqual(
      table.flatMap((row, i) => (row.event === 'Frost' ? [i] : [])),
    );
    expect(consumed[0]?.description).toBe(table[4]?.description);
  });

  it('refuses row_ids the table does not have, and row_ids without a resource_url', async () => {
    const { object } = await call('get_table', { abstract_domains: 'event' });
    const missing = await agent.call('consume', {
      resource_url: object.resource_url,
      row_ids: [ROWS + 5],
    });
    expect(errorCode(missing)).toBe('invalid_request');
    const noUrl = await agent.call('consume', { row_ids: [1] });
    expect(errorCode(noUrl)).toBe('invalid_request');
  });

  it('still takes abstract_data, as the Python reference sends it', async () => {
    const { object } = await call('get_table', { abstract_domains: 'event' });
    const kept = object.abstract.slice(0, 2);
    const result = await agent.call('consume', {
      abstract_data: JSON.stringify(kept),
      resource_url: object.resource_url,
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(consumed.map((row) => row._row_id)).toEqual([0, 1]);
  });
});

describe('compact encoding', () => {
  it('writes a header row plus value rows for the model; structuredContent stays §2', async () => {
    const result = await compactAgent.call('get_table', {
      abstract_domains: 'event,severity',
      filter: { event: 'Frost', severity: 'Minor' },
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    const text = JSON.parse(textOf(result)) as Record<string, unknown>;
    const structured = S2SPResultSchema.parse(result.structuredContent);
    // body_domains is left out: the tool description lists every column already.
    expect(text.body_domains).toBeUndefined();
    expect(structured.body_domains).toEqual(['id', 'magnitude', 'description']);
    // Every matching row has the same values, so they share one value row listing their ids.
    expect(text.abstract).toEqual([
      ['_row_id', 'event', 'severity'],
      [structured.abstract.map((row) => row._row_id), 'Frost', 'Minor'],
    ]);
    // A consumer takes the compact rows back as abstract_data.
    const handed = await compactAgent.call('consume', {
      abstract_data: JSON.stringify(text.abstract),
      resource_url: text.resource_url,
    });
    expect(handed.isError, textOf(handed)).toBeFalsy();
    expect(consumed).toHaveLength(structured.abstract.length);
    const firstId = structured.abstract[0]?._row_id ?? -1;
    expect(consumed[0]).toEqual({ _row_id: firstId, ...table[firstId] });
  });
});

describe('compact encoding declared by the host (request _meta)', () => {
  const declare = (client: TestMcpClient, encoding: unknown, args: Record<string, unknown>) =>
    client.client.callTool({
      name: 'get_table',
      arguments: args,
      _meta: { 'io.github.s2sp/abstract-encoding': encoding },
    }) as Promise<ToolResult>;
  const args = {
    abstract_domains: 'event,severity',
    filter: { event: 'Frost', severity: 'Minor' },
  };

  it('gets a host that declares it the compact text from a default (JSON) server', async () => {
    const result = await declare(agent, 'compact', args);
    expect(result.isError, textOf(result)).toBeFalsy();
    const text = JSON.parse(textOf(result)) as { abstract: unknown[] };
    const structured = S2SPResultSchema.parse(result.structuredContent);
    expect(text.abstract[0]).toEqual(['_row_id', 'event', 'severity']);
    expect(text.abstract).toHaveLength(2);
    expect(structured.abstract.length).toBeGreaterThan(1);
  });

  it('leaves a client that declares nothing, or something unknown, on PROTOCOL §2', async () => {
    for (const result of [await agent.call('get_table', args), await declare(agent, 'xml', args)]) {
      const object = S2SPResultSchema.parse(JSON.parse(textOf(result)));
      expect(object.abstract[0]).toMatchObject({ event: 'Frost', severity: 'Minor' });
      expect(object.body_domains).toEqual(['id', 'magnitude', 'description']);
    }
  });

  it('gets a host that declares "json" §2 text from a compact server', async () => {
    const result = await declare(compactAgent, 'json', args);
    const object = S2SPResultSchema.parse(JSON.parse(textOf(result)));
    expect(object.abstract[0]).toMatchObject({ event: 'Frost', severity: 'Minor' });
  });
});

describe('a shorter tools/list', () => {
  it('says the how-to once in the instructions, one line per tool, each column list once', async () => {
    expect(agent.client.getInstructions()).toMatch(/S2SP tables: /);
    const { tools } = await agent.client.listTools();
    const first = tools.find((t) => t.name === 'get_table');
    const second = tools.find((t) => t.name === 'get_same_rows');
    expect(first?.description).toBe(
      'A large table.\n\nS2SP table (see server instructions). Columns: id, event (alert type), severity, magnitude, description.',
    );
    expect(second?.description).toBe(
      'The same rows again.\n\nS2SP table (see server instructions). Columns: as get_table.',
    );
    expect(Object.keys(first?.inputSchema.properties ?? {})).toEqual([
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
    ]);
    const consumer = tools.find((t) => t.name === 'consume');
    expect(consumer?.inputSchema.required ?? []).toEqual([]);
    expect(Object.keys(consumer?.inputSchema.properties ?? {})).toContain('row_ids');
  });
});

describe('a hand-off of more rows than a data plane takes ids for', () => {
  it('fetches the whole table and selects locally, with abstract_data and with row_ids', async () => {
    const many = Array.from({ length: 10_050 }, (_, i) => ({ n: i, text: `row ${i}` }));
    let got: RowWithId[] = [];
    const big = createS2SPServer({
      name: 'big',
      version: '1',
      logger: silentLogger,
      consumer: { destinations: 'any' }, // the resource server is on loopback
    })
      .resourceTool('get_many', { description: 'Many rows.' }, () => many)
      .consumerTool('take', { description: 'Takes rows.' }, (rows) => {
        got = rows;
        return 'ok';
      });
    const bigListening = await big.listen();
    try {
      await using client = await connectMcpClient(bigListening.mcpUrl);
      const ask = async () => {
        const result = await client.call('get_many', { abstract_domains: 'n' });
        return S2SPResultSchema.parse(result.structuredContent);
      };
      // 10,002 ids: more than the data plane's default of 10,000 per request.
      const ids = Array.from({ length: 10_002 }, (_, i) => 10_049 - i);
      const byIds = await client.call('take', {
        resource_url: (await ask()).resource_url,
        row_ids: ids,
      });
      expect(byIds.isError, textOf(byIds)).toBeFalsy();
      expect(got.map((row) => row._row_id)).toEqual(ids);
      expect(got[0]).toEqual({ _row_id: 10_049, n: 10_049, text: 'row 10049' });

      const first = await ask();
      const kept = Array.from({ length: 10_001 }, (_, i) => ({ _row_id: i, n: i }));
      const byRows = await client.call('take', {
        resource_url: first.resource_url,
        abstract_data: kept,
      });
      expect(byRows.isError, textOf(byRows)).toBeFalsy();
      expect(got).toHaveLength(10_001);
      expect(got[10_000]).toEqual({ _row_id: 10_000, n: 10_000, text: 'row 10000' });
    } finally {
      await bigListening.close();
      await big.close();
    }
  });
});

describe('paging into a store that runs out of room', () => {
  it('leaves no entry behind when a page does not fit, and says store_full', async () => {
    const make = (store: ReturnType<typeof createMemoryStore>, tokenBudget: number) =>
      createS2SPServer({
        name: 'full',
        version: '1',
        logger: silentLogger,
        store,
        tokenBudget,
      }).resourceTool('get_table', { description: 'A large table.' }, () => table);
    // What the table's own entry is charged: its bytes, 1 KiB, and 4 bytes per row.
    const roomy = createMemoryStore({});
    const sizing = make(roomy, 1_000_000);
    const sizingListening = await sizing.listen();
    await using sizer = await connectMcpClient(sizingListening.mcpUrl);
    expect((await sizer.call('get_table', { abstract_domains: 'event' })).isError).toBeFalsy();
    const stats = await roomy.stats();
    const charge = stats.bytes + 1024 + 4 * ROWS;
    await sizingListening.close();
    await sizing.close();

    // Room for the table, not for one more page (each costs at least 1 KiB).
    const tight = createMemoryStore({ maxBytes: charge + 512 });
    const server = make(tight, BUDGET);
    const tightListening = await server.listen();
    try {
      await using client = await connectMcpClient(tightListening.mcpUrl);
      const result = await client.call('get_table', { abstract_domains: 'event' });
      expect(errorCode(result)).toBe('store_full');
      expect((await tight.stats()).entries).toBe(0);
    } finally {
      await tightListening.close();
      await server.close();
    }
  });
});
