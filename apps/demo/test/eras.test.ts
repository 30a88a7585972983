// The demo's chains for clients of both protocol eras: an SDK v2 client pinned to 2026-07-28
// (no initialize, the per-request envelope) and an SDK v1 client (2025-11-25), against the same
// servers on the same endpoints — weather-alerts → chart-consumer, and get_alerts → query_tables
// on sql-consumer.
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as V2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readS2SPCapability, S2SPResultSchema } from '@s2sp/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pipeline, startPipeline } from '../src/pipeline.js';

interface Result {
  isError?: boolean;
  structuredContent?: unknown;
  content?: unknown;
}
interface Caller {
  readonly era: string | undefined;
  readonly capabilities: unknown;
  call(name: string, args: Record<string, unknown>): Promise<Result>;
  close(): Promise<void>;
}

async function v2Pinned(url: string): Promise<Caller> {
  const client = new ClientV2(
    { name: 'era-test', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new V2(new URL(url)));
  return {
    era: client.getProtocolEra(),
    capabilities: client.getServerCapabilities(),
    call: (name, args) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  };
}

async function v1(url: string): Promise<Caller> {
  const client = new ClientV1({ name: 'era-test', version: '1' });
  await client.connect(new V1(new URL(url)));
  return {
    era: 'legacy',
    capabilities: client.getServerCapabilities(),
    call: (name, args) => client.callTool({ name, arguments: args }) as Promise<Result>,
    close: () => client.close(),
  };
}

let pipeline: Pipeline;
beforeAll(async () => {
  pipeline = await startPipeline({ live: false, say: () => {} });
});
afterAll(() => pipeline.close());

/** The result's object: structuredContent, else its first text block parsed. */
function ok(result: Result): Record<string, unknown> {
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  if (result.structuredContent) return result.structuredContent as Record<string, unknown>;
  const [first] = result.content as { type: string; text: string }[];
  return JSON.parse(first?.text ?? 'null') as Record<string, unknown>;
}

describe.each([
  ['an SDK v2 client pinned to 2026-07-28', v2Pinned, 'modern'],
  ['an SDK v1 client (2025-11-25)', v1, 'legacy'],
])('the demo chains for %s', (_name, connect, era) => {
  it('weather-alerts → chart-consumer: the chart draws the rows the resource_url held', async () => {
    const weather = await connect(pipeline.weather.mcpUrl);
    const chart = await connect(pipeline.chart.mcpUrl);
    try {
      expect([weather.era, chart.era]).toEqual([era, era]);
      expect(readS2SPCapability(weather.capabilities)?.roles).toEqual(['resource']);
      expect(readS2SPCapability(chart.capabilities)?.roles).toContain('consumer');
      const split = S2SPResultSchema.parse(
        ok(await weather.call('get_alerts', { area: 'TX', abstract_domains: 'event,severity' })),
      );
      expect(split.total_rows).toBe(19);
      const drawn = ok(
        await chart.call('draw_chart', {
          abstract_data: JSON.stringify(split.abstract),
          resource_url: split.resource_url,
        }),
      );
      expect(drawn.rows_charted).toBe(19);
    } finally {
      await weather.close();
      await chart.close();
    }
  });

  it('get_alerts → query_tables on sql-consumer: SQL over the withheld rows', async () => {
    const weather = await connect(pipeline.weather.mcpUrl);
    const sql = await connect(pipeline.sql.mcpUrl);
    try {
      const split = S2SPResultSchema.parse(
        ok(await weather.call('get_alerts', { area: 'TX', abstract_domains: 'severity' })),
      );
      const answer = ok(
        await sql.call('query_tables', {
          sql: 'SELECT count(*) AS n, count(DISTINCT "headline") AS headlines FROM alerts',
          tables: { alerts: split.resource_url },
        }),
      );
      expect(JSON.stringify(answer)).toContain('"n":19');
    } finally {
      await weather.close();
      await sql.close();
    }
  });
});
