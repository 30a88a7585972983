/**
 * The proof against a real server no one here wrote: @modelcontextprotocol/server-postgres, run
 * from node_modules in front of a throwaway PostgreSQL cluster, through the proxy.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createChartServer } from '@s2sp/app-chart-consumer';
import { S2SPResultSchema } from '@s2sp/core';
import { silentLogger } from '@s2sp/server';
import { type PostgresTestServer, startPostgres } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StdioUpstream } from '../src/index.js';
import { cliPath, httpClient, startProxy, stdioClient, upstreamBin } from './support.js';

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: unknown;
  isError?: boolean;
};

let pg: PostgresTestServer;
let upstream: StdioUpstream;
const SQL = 'SELECT id, event, severity, urgency, area, description FROM alerts ORDER BY id';

beforeAll(async () => {
  pg = await startPostgres();
  await pg.sql(`
    CREATE TABLE alerts (id int PRIMARY KEY, event text NOT NULL, severity text, urgency text, area text, description text);
    INSERT INTO alerts
      SELECT i,
             (ARRAY['Heat Advisory','Flood Watch','Wind Advisory'])[1 + i % 3],
             (ARRAY['Moderate','Severe','Minor'])[1 + i % 3],
             (ARRAY['Expected','Immediate'])[1 + i % 2],
             'County ' || i,
             repeat('Long narrative text about the alert. ', 10) || i
      FROM generate_series(1, 30) AS i;
  `);
  upstream = {
    kind: 'stdio',
    command: process.execPath,
    args: [upstreamBin('@modelcontextprotocol/server-postgres', 'dist/index.js'), pg.url],
  };
}, 120_000);
afterAll(() => pg?.stop());

describe('@modelcontextprotocol/server-postgres through the proxy', () => {
  it('returns only the abstract columns, and a resource_url that redeems every column of every row', async () => {
    await using running = await startProxy({ upstream, tableTools: [{ name: 'query' }] });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(upstream);
    const { tools } = await agent.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['query']);
    expect(Object.keys(tools[0]?.inputSchema.properties ?? {})).toEqual([
      'sql',
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
      'abstract_budget_tokens',
      'table',
    ]);

    const all = JSON.parse(
      ((await direct.client.callTool({ name: 'query', arguments: { sql: SQL } })) as Result)
        .content[0]?.text ?? '',
    );
    expect(all).toHaveLength(30);
    const split = (await agent.client.callTool({
      name: 'query',
      arguments: { sql: SQL, abstract_domains: 'event,severity' },
    })) as Result;
    expect(split.isError).toBeFalsy();
    const result = S2SPResultSchema.parse(split.structuredContent);
    expect(result.total_rows).toBe(30);
    expect(result.abstract[0]).toEqual({ _row_id: 0, event: 'Flood Watch', severity: 'Severe' });
    for (const row of result.abstract)
      expect(Object.keys(row)).toEqual(['_row_id', 'event', 'severity']);
    expect(result.body_domains).toEqual(['id', 'urgency', 'area', 'description']);

    const response = await fetch(result.resource_url ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const { body } = (await response.json()) as { body: Record<string, unknown>[] };
    expect(body).toEqual(all.map((row: object, i: number) => ({ _row_id: i, ...row })));
  });

  it('returns the upstream result byte for byte without abstract_domains, errors included', async () => {
    await using running = await startProxy({ upstream, tableTools: [{ name: 'query' }] });
    await using agent = await httpClient(running.listener.mcpUrl);
    await using direct = await stdioClient(upstream);
    for (const sql of [SQL, 'SELECT count(*) AS n FROM alerts', 'SELECT 1 WHERE false']) {
      const viaProxy = (await agent.client.callTool({
        name: 'query',
        arguments: { sql },
      })) as Result;
      const viaDirect = (await direct.client.callTool({
        name: 'query',
        arguments: { sql },
      })) as Result;
      expect(viaProxy.content[0]?.text).toBe(viaDirect.content[0]?.text);
      expect(viaProxy).toEqual(viaDirect);
    }
    const bad = await agent.client
      .callTool({ name: 'query', arguments: { sql: 'SELECT nope FROM alerts' } })
      .catch((e: unknown) => e);
    const badDirect = await direct.client
      .callTool({ name: 'query', arguments: { sql: 'SELECT nope FROM alerts' } })
      .catch((e: unknown) => e);
    expect(String(bad)).toBe(String(badDirect));
    // An unknown column gets the available ones listed.
    const unknown = (await agent.client.callTool({
      name: 'query',
      arguments: { sql: SQL, abstract_domains: 'evnt' },
    })) as Result;
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]?.text).toContain('severity');
  });

  it("lets apps/chart-consumer's draw_chart chart rows fetched from the proxy's data plane", async () => {
    await using running = await startProxy({ upstream, tableTools: [{ name: 'query' }] });
    const chart = createChartServer({
      allowedOrigins: [running.listener.url],
      logger: silentLogger,
    });
    const chartHttp = await chart.server.listen();
    chart.setBaseUrl(chartHttp.url);
    try {
      await using agent = await httpClient(running.listener.mcpUrl);
      const split = (await agent.client.callTool({
        name: 'query',
        arguments: { sql: SQL, abstract_domains: ['event'] },
      })) as Result;
      const { abstract, resource_url } = S2SPResultSchema.parse(split.structuredContent);
      const heat = abstract.filter((row) => row.event === 'Heat Advisory');
      expect(heat).toHaveLength(10);
      await using charting = await httpClient(chartHttp.mcpUrl);
      const drawn = (await charting.client.callTool({
        name: 'draw_chart',
        arguments: {
          abstract_data: JSON.stringify(heat),
          resource_url,
          group_by: 'severity,urgency',
        },
      })) as Result;
      expect(drawn.isError).toBeFalsy();
      const summary = JSON.parse(drawn.content[0]?.text ?? '') as {
        rows_charted: number;
        chart_id: string;
        panels: { column: string; distinct: number }[];
      };
      expect(summary.rows_charted).toBe(10);
      // Counts only come back to the model: severity and urgency are body columns.
      expect(summary.panels).toEqual([
        { column: 'severity', distinct: 1, bars: 1 },
        { column: 'urgency', distinct: 2, bars: 2 },
      ]);
      // …but the chart has their values: they came over the proxy's data plane.
      const stored = await chart.charts.get(summary.chart_id);
      expect(stored?.record.panels.map((p) => p.counts)).toEqual([
        [{ value: 'Moderate', count: 10 }],
        [
          { value: 'Expected', count: 5 },
          { value: 'Immediate', count: 5 },
        ],
      ]);
      expect(drawn.content.map((c) => c.type)).toEqual(['text']);
    } finally {
      await chart.server.close();
    }
  });

  it('serves stdio clients from the CLI, with the data plane on HTTP', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        cliPath(),
        '--stdio',
        '--log-level',
        'warn',
        '--table-tool',
        'query',
        '--',
        upstream.command,
        ...(upstream.args ?? []),
      ],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-agent', version: '1' });
    await client.connect(transport);
    try {
      const split = (await client.callTool({
        name: 'query',
        arguments: { sql: SQL, abstract_domains: 'event', mode: 'async' },
      })) as Result;
      const result = S2SPResultSchema.parse(split.structuredContent);
      expect(result.resource_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//);
      const response = await fetch(result.resource_url ?? '', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"row_ids":[29],"columns":["area"]}',
      });
      expect(((await response.json()) as { body: unknown }).body).toEqual([
        { _row_id: 29, area: 'County 30' },
      ]);
    } finally {
      await client.close();
    }
  });
});
