// Renders are bounded per consumer: one JSON-RPC batch of draw_chart calls
// runs at most `maxConcurrentRenders` at once and `maxQueuedRenders` more; the rest are refused
// at once with a "busy, retry" tool error instead of blocking the event loop for all of them.
import { silentLogger } from '@s2sp/server';
import { describe, expect, it } from 'vitest';
import { createChartServer } from '../src/chart-server.js';
import { texasAlertRows } from './support.js';

describe('draw_chart render limit', () => {
  it('renders 2 of a batch of 6 with one slot and one queue place, and refuses 4 as busy', async () => {
    const chart = createChartServer({
      logger: silentLogger,
      maxConcurrentRenders: 1,
      maxQueuedRenders: 1,
    });
    const rows = texasAlertRows().slice(0, 20);
    const abstract = rows.map((row, i) => ({ _row_id: i, event: row.event }));
    const body = rows.map((row, i) => ({ _row_id: i, severity: row.severity }));
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'draw_chart',
        arguments: {
          abstract_data: JSON.stringify(abstract),
          body_data: JSON.stringify(body),
          group_by: 'event,severity',
        },
      },
    });
    const response = await chart.server.app.request('/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify([0, 1, 2, 3, 4, 5].map(call)),
    });
    expect(response.status).toBe(200);
    const results = (await response.json()) as {
      result: { isError?: boolean; content: { type: string; text?: string }[] };
    }[];
    const busy = results.filter(
      (r) => r.result.isError === true && /busy/.test(r.result.content[0]?.text ?? ''),
    );
    const drawn = results.filter((r) => r.result.isError !== true);
    expect(drawn).toHaveLength(2);
    expect(busy).toHaveLength(4);
    expect((await chart.charts.list()).length).toBe(2);
    await chart.server.close();
  });
});
