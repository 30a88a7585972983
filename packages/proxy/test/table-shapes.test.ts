/**
 * The proxy finds the table in every shape real MCP servers answer with. The fixture
 * upstream (fixtures/shapes-server.mjs) renders the same three cities in each shape.
 */
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createRedisBodyStore } from '@s2sp/cache-redis';
import { startRedis } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { upstreamWordsText } from '../src/tables/detect/upstream-note.js';
import type { StdioUpstream } from '../src/upstream/upstream-target.js';
import { httpClient, startProxy, stdioClient } from './support.js';
import { call, code, listed, type Result, s2sp, text } from './table-calls.js';

const SHAPES: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [fileURLToPath(new URL('./fixtures/shapes-server.mjs', import.meta.url))],
};
const CITIES = [
  {
    id: 1,
    city: 'Austin',
    state: 'TX',
    zip: '73301',
    population: 974447,
    note: 'capital, "live music"',
  },
  { id: 2, city: 'Boston', state: 'MA', zip: '02108', population: 675647, note: 'harbor & bay' },
  { id: 3, city: 'Chicago', state: 'IL', zip: '60601', population: 2746388, note: 'lake' },
];
const withIds = (rows: readonly unknown[]) =>
  rows.map((row, i) => ({ _row_id: i, ...(row as object) }));

async function redeem(url: string): Promise<unknown[]> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { body: unknown[] }).body;
}

/** The rows of a plain call, read the way each shape writes them. */
function plainRows(name: string, result: Result): unknown[] {
  const first = JSON.parse(text(result));
  switch (name) {
    case 'two_blocks':
      return first;
    case 'nested':
      return first.result.items;
    case 'columns_rows':
      return first.rows.map((row: unknown[]) =>
        Object.fromEntries(first.columns.map((c: { name: string }, i: number) => [c.name, row[i]])),
      );
    case 'structured':
      return (result.structuredContent as { items: unknown[] }).items;
    default:
      throw new Error(name);
  }
}

async function splitAndRedeem(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await call(client, name, { ...args, abstract_domains: 'city,state' });
  const split = s2sp(result);
  for (const row of split.abstract) expect(Object.keys(row)).toEqual(['_row_id', 'city', 'state']);
  return { result, split, body: await redeem(split.resource_url ?? '') };
}

describe('table shapes through the proxy', () => {
  it('splits JSON shapes: a block among notes, nested wrappers, header plus arrays, structuredContent', async () => {
    await using running = await startProxy({ upstream: SHAPES });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(SHAPES);
    for (const name of ['two_blocks', 'nested', 'columns_rows', 'structured']) {
      const plain = await call(agent.client, name);
      expect(plain).toEqual(await call(direct.client, name));
      const { result, split, body } = await splitAndRedeem(agent.client, name);
      expect(split.abstract, name).toEqual(
        CITIES.map((c, i) => ({ _row_id: i, city: c.city, state: c.state })),
      );
      expect(body, name).toEqual(withIds(plainRows(name, plain)));
      expect(body, name).toEqual(withIds(CITIES));
      const extra = result.content.slice(1).map((block) => block.text);
      if (name === 'two_blocks') expect(extra).toEqual(['Query executed in 3.2 ms']);
      if (name === 'structured') {
        expect(extra[0]).toBe('3 cities.');
        expect(extra[1]).toMatch(/^The proxy left out 1 block repeating the table/);
      }
    }
  });

  it('splits CSV, TSV, Markdown in prose, HTML and JSON Lines, typing only all-numeric columns', async () => {
    await using running = await startProxy({ upstream: SHAPES });
    await using agent = await httpClient(running.listener.mcpUrl);
    for (const name of ['csv', 'tsv', 'markdown', 'html', 'jsonl']) {
      const { body } = await splitAndRedeem(agent.client, name);
      // zip keeps its leading zero (a string column); id and population are numbers.
      expect(body, name).toEqual(withIds(CITIES));
    }
  });

  it('lists several arrays when table is missing, and keeps or stores the ones not named', async () => {
    await using running = await startProxy({ upstream: SHAPES });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(SHAPES);
    const ambiguous = await call(agent.client, 'several', { abstract_domains: 'city' });
    expect(code(ambiguous)).toBe('invalid_rows');
    expect(text(ambiguous)).toContain(
      '"/entities" (3 rows), "/relations" (2 rows), "/edges" (300 rows)',
    );
    // From now on this client's description names them too, labelled as the upstream's.
    expect((await listed(agent.client, 'several'))?.description).toContain(
      'result (names from the upstream’s result; pass one as table): "/entities" (3 rows), "/relations" (2 rows), "/edges" (300 rows).',
    );

    const plain = JSON.parse(text(await call(direct.client, 'several')));
    const { result, body } = await splitAndRedeem(agent.client, 'several', { table: 'entities' });
    expect(body).toEqual(withIds(plain.entities));
    const [relations, edges] = result.content.slice(1).map((block) => block.text);
    // Small: as it was. Large: stored beside the table, its own resource_url redeems every row.
    expect(relations).toBe(
      `Also in the upstream's result, "/relations" (2 rows): ${JSON.stringify(plain.relations)}`,
    );
    expect(edges).toMatch(
      /^Also in the upstream's result, "\/edges" \(300 rows\), stored beside the table: /,
    );
    const edgesUrl = /"resource_url":"([^"]+)"/.exec(edges ?? '')?.[1];
    expect(await redeem(edgesUrl ?? '')).toEqual(withIds(plain.edges));

    // A JSON Pointer names it as well; a name that is not there is refused, listing the arrays.
    const byPointer = s2sp(
      await call(agent.client, 'several', { abstract_domains: 'kind', table: '/relations' }),
    );
    expect(byPointer.total_rows).toBe(2);
    const wrong = await call(agent.client, 'several', { abstract_domains: 'city', table: 'nodes' });
    expect(code(wrong)).toBe('invalid_rows');
    expect(text(wrong)).toContain('no array named "nodes"');
  });

  it('keeps the learned columns through a 0-row result, wrapped or at the top', async () => {
    await using running = await startProxy({ upstream: SHAPES });
    await using agent = await httpClient(running.listener.mcpUrl);
    for (const name of ['empty_wrapped', 'empty_top']) {
      await splitAndRedeem(agent.client, name);
      const before = (await listed(agent.client, name))?.description;
      // The catalogue lists each learned column with its cost: `"id" ~5, "city" ~7, …`.
      expect(before?.match(/"(\w+)" ~\d+/g)?.map((entry) => entry.split('"')[1])).toEqual([
        'id',
        'city',
        'state',
        'zip',
        'population',
        'note',
      ]);
      const empty = s2sp(await call(agent.client, name, { empty: true, abstract_domains: 'city' }));
      expect(empty.total_rows).toBe(0);
      expect(empty.abstract).toEqual([]);
      expect((await listed(agent.client, name))?.description).toBe(before);
    }
  });

  it('splits a table of megabytes read as bytes, every value redeemed as the upstream sent it', async () => {
    await using running = await startProxy({ upstream: SHAPES });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(SHAPES);
    const args = { count: 6000 };
    const plain = await call(direct.client, 'large_compact', args);
    // Past the 1 MiB from which the proxy keeps a text block as bytes (upstream/large-strings).
    expect(Buffer.byteLength(text(plain))).toBeGreaterThan(1.5 * 1024 * 1024);
    const rows = JSON.parse(text(plain)) as Record<string, unknown>[];
    expect(await call(agent.client, 'large_compact', args)).toEqual(plain);

    const result = await call(agent.client, 'large_compact', {
      ...args,
      abstract_domains: 'city,state',
    });
    const split = s2sp(result);
    expect(split.total_rows).toBe(6000);
    // The abstract's first page, within the default token budget (PROTOCOL §7.2).
    expect(split.next_cursor).toBeDefined();
    expect(split.abstract.length).toBeGreaterThan(100);
    expect(split.abstract).toEqual(
      rows
        .slice(0, split.abstract.length)
        .map((row, i) => ({ _row_id: i, city: row.city, state: row.state })),
    );
    // The small note beside the table stays in the result.
    expect(result.content.map((block) => block.text)).toContain('Query executed in 9.1 ms');
    const body = await redeem(split.resource_url ?? '');
    expect(body).toEqual(withIds(rows));
    // Byte for byte too: each stored row is `{"_row_id":i,` and the upstream's own row text.
    expect(JSON.stringify(body)).toBe(JSON.stringify(withIds(rows)));
  });

  it('says what a result without a table was, and how to call the tool plainly', async () => {
    await using running = await startProxy({
      upstream: SHAPES,
      tableTools: [{ name: 'markdown', format: 'html' }],
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const picture = await call(agent.client, 'picture', { abstract_domains: 'city' });
    expect(code(picture)).toBe('invalid_rows');
    expect(text(picture)).toContain(
      '2 content blocks: text (22 characters), image (12 characters)',
    );
    expect(text(picture)).toContain('without abstract_domains and mode');
    // A configured format is the only one tried.
    const wrongFormat = await call(agent.client, 'markdown', { abstract_domains: 'city' });
    expect(code(wrongFormat)).toBe('invalid_rows');
    expect(text(wrongFormat)).toContain('the text has no HTML <table>');
  });
});

describe('what real servers answer with: partial answers and more shapes', () => {
  it('says in the result the model reads that the upstream cut its answer, with its count and hint', async () => {
    await using running = await startProxy({ upstream: SHAPES });
    await using agent = await httpClient(running.listener.mcpUrl);
    const args = { count: 150, keep: 22 };
    const result = await call(agent.client, 'capped', { ...args, abstract_domains: 'city' });
    const split = s2sp(result);
    expect(split.total_rows).toBe(22);
    const said = result.content.slice(1).map((block) => block.text);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^Upstream says: its answer is partial — 22 of 150 rows/);
    expect(said[0]).toContain('"rowCount": 150, "truncated": true');
    expect(said[0]).toContain(
      '"hint": "returned 22 of 150 rows (~32768-byte budget): add LIMIT/WHERE or select fewer columns"',
    );
    // The rows stored are the 22 the upstream sent.
    expect(await redeem(split.resource_url ?? '')).toHaveLength(22);
    // A whole answer says nothing more.
    const whole = await call(agent.client, 'capped', { count: 5, abstract_domains: 'city' });
    expect(whole.content).toHaveLength(1);
  });

  it('splits JSON after prose, CSV inside a JSON string, and the rows inside an MCP result in text', async () => {
    await using running = await startProxy({ upstream: SHAPES });
    await using agent = await httpClient(running.listener.mcpUrl);
    for (const name of ['prose_json', 'csv_in_json', 'wrapped']) {
      const { result, split, body } = await splitAndRedeem(agent.client, name);
      expect(split.abstract, name).toEqual(
        CITIES.map((c, i) => ({ _row_id: i, city: c.city, state: c.state })),
      );
      expect(body, name).toEqual(withIds(CITIES));
      if (name === 'prose_json') {
        expect(result.content.slice(1).map((block) => block.text)).toEqual([
          upstreamWordsText({
            before: 'Query executed successfully. Retrieved 3 rows.\n\nResults:',
            after: '',
          }),
        ]);
      }
    }
  });

  it('reads the string a --table-tool NAME:POINTER:FORMAT names', async () => {
    await using running = await startProxy({
      upstream: SHAPES,
      tableTools: [{ name: 'csv_in_json', pointer: '/csv', format: 'csv' }],
    });
    await using agent = await httpClient(running.listener.mcpUrl);
    const { body } = await splitAndRedeem(agent.client, 'csv_in_json');
    expect(body).toEqual(withIds(CITIES));
  });

  it('detects a table tool of a Go server whose annotations are mcp-go’s stamped defaults', async () => {
    await using running = await startProxy({ upstream: SHAPES });
    await using agent = await httpClient(running.listener.mcpUrl);
    expect(
      (await listed(agent.client, 'describe_sheets'))?.inputSchema.properties,
    ).not.toHaveProperty('abstract_domains');
    // The plain call returns a table: from then on this client sees a table tool.
    await call(agent.client, 'describe_sheets');
    expect((await listed(agent.client, 'describe_sheets'))?.inputSchema.properties).toHaveProperty(
      'abstract_domains',
    );
    const split = s2sp(await call(agent.client, 'describe_sheets', { abstract_domains: 'name' }));
    expect(split.abstract).toEqual([{ _row_id: 0, name: 'Alerts' }]);
  });

  it('stores a text table’s row bytes in Redis as in memory: every row redeemed', async () => {
    await using redis = await startRedis();
    const store = createRedisBodyStore({ url: redis.url, keyPrefix: `shapes-${Date.now()}:` });
    try {
      await using running = await startProxy({ upstream: SHAPES, store });
      await using agent = await httpClient(running.listener.mcpUrl);
      for (const name of ['csv', 'html', 'jsonl', 'csv_in_json']) {
        const { body } = await splitAndRedeem(agent.client, name, { count: 30 });
        expect(body, name).toEqual(
          withIds(Array.from({ length: 30 }, (_, i) => ({ ...CITIES[i % 3], id: i + 1 }))),
        );
      }
    } finally {
      await store.close();
    }
  });
});
