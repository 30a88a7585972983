// The demo's chains for clients of both protocol eras: an SDK v2 client pinned to 2026-07-28
// (no initialize, the per-request envelope) and an SDK v1 client (2025-11-25), against the same
// servers on the same endpoints — weather-alerts → chart-consumer, and get_alerts → query_tables
// on sql-consumer.
import { readS2SPCapability, S2SPResultSchema } from '@s2sp/core';
import { connectEraClient, MODERN_REVISION, runTitle, type SdkClientRun } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pipeline, startPipeline } from '../src/pipeline.js';

interface Result {
  isError?: boolean;
  structuredContent?: unknown;
  content?: unknown;
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

const RUNS: SdkClientRun[] = [
  { sdk: 2, era: MODERN_REVISION },
  { sdk: 1, era: 'legacy' },
];

describe.each(RUNS.map((run) => [runTitle(run), run] as const))(
  'the demo chains for %s',
  (_name, run) => {
    it('weather-alerts → chart-consumer: the chart draws the rows the resource_url held', async () => {
      const weather = await connectEraClient(pipeline.weather.mcpUrl, run);
      const chart = await connectEraClient(pipeline.chart.mcpUrl, run);
      try {
        expect(readS2SPCapability(weather.capabilities())?.roles).toEqual(['resource']);
        expect(readS2SPCapability(chart.capabilities())?.roles).toContain('consumer');
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
      const weather = await connectEraClient(pipeline.weather.mcpUrl, run);
      const sql = await connectEraClient(pipeline.sql.mcpUrl, run);
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
  },
);
