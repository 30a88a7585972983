import { connectMcpClient, type ToolResult, textOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { pngSize, startChartPipeline } from './support.js';

type Abstract = {
  abstract: { _row_id: number; event: string }[];
  resource_url: string;
  body?: unknown[];
};

async function heatAdvisories(resourceMcp: string, mode: 'async' | 'sync' = 'async') {
  await using agent = await connectMcpClient(resourceMcp);
  const result = (await agent.call('get_alerts', { abstract_domains: 'event,severity', mode }))
    .structuredContent as Abstract;
  return { ...result, heat: result.abstract.filter((row) => row.event === 'Heat Advisory') };
}

describe('draw_chart', () => {
  it('charts the rows it fetched from the resource server, and returns a summary and a PNG', async () => {
    await using pipeline = await startChartPipeline();
    const { heat, resource_url } = await heatAdvisories(pipeline.resource.mcpUrl);
    expect(heat).toHaveLength(9);
    await using agent = await connectMcpClient(pipeline.chartHttp.mcpUrl);
    const result = await agent.call('draw_chart', {
      abstract_data: JSON.stringify(heat),
      resource_url,
    });
    expect(result.isError).toBeFalsy();

    const summary = JSON.parse(textOf(result)) as {
      chart_id: string;
      chart_url: string;
      rows_charted: number;
      panels: { title: string; top: [string, number][] }[];
    };
    expect(summary.rows_charted).toBe(9);
    expect(summary.panels.map((p) => p.title)).toEqual([
      'Event Type',
      'Severity',
      'Urgency',
      'Certainty',
      'NWS Office',
      'Message Type',
      'Category',
      'Affected Area',
    ]);
    // Those columns were not in the abstract: they came over the data plane.
    expect(summary.panels[0]?.top).toEqual([['Heat Advisory', 9]]);
    expect(summary.panels[2]?.top).toEqual([['Expected', 9]]);
    expect(summary.chart_url).toBe(`${pipeline.chartHttp.url}/charts/${summary.chart_id}`);

    const image = result.content.find((c) => c.type === 'image');
    expect(image?.mimeType).toBe('image/png');
    const png = new Uint8Array(Buffer.from(image?.data ?? '', 'base64'));
    const size = pngSize(png);
    expect(size.width).toBeGreaterThan(1200);
    expect(size.height).toBeGreaterThan(800);

    const page = await fetch(summary.chart_url);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('Weather Alert Statistics (9 alerts)');
    expect(html).toContain('<svg');
    const served = new Uint8Array(await (await fetch(`${summary.chart_url}.png`)).arrayBuffer());
    expect(served).toEqual(png);
    const list = await (await fetch(`${pipeline.chartHttp.url}/charts`)).text();
    expect(list).toContain(`/charts/${summary.chart_id}`);
  });

  it('charts any table by group_by, with a custom title, in sync mode', async () => {
    await using pipeline = await startChartPipeline();
    const { abstract, body } = await heatAdvisories(pipeline.resource.mcpUrl, 'sync');
    await using agent = await connectMcpClient(pipeline.chartHttp.mcpUrl);
    const result = await agent.call('draw_chart', {
      abstract_data: JSON.stringify(abstract),
      body_data: JSON.stringify(body),
      group_by: 'certainty,messageType',
      title: 'By certainty',
    });
    const summary = JSON.parse(textOf(result)) as {
      rows_charted: number;
      panels: { column: string; top: [string, number][] }[];
    };
    expect(summary.rows_charted).toBe(12);
    expect(summary.panels.map((p) => p.column)).toEqual(['certainty', 'messageType']);
    expect(summary.panels[0]?.top).toEqual([
      ['Likely', 9],
      ['Observed', 3],
    ]);
  });

  it.each([
    [{ abstract_data: '[]' }, /No rows to chart/],
    [
      { abstract_data: '[{"_row_id":0,"event":"x"}]', group_by: 'colour' },
      /group_by names columns the rows do not have: colour\. Available columns: event/,
    ],
    [
      { abstract_data: '[{"_row_id":0,"event":"x"}]', group_by: '["event"' },
      /group_by is not valid/,
    ],
  ])('refuses %j with advice', async (args, message) => {
    await using pipeline = await startChartPipeline();
    await using agent = await connectMcpClient(pipeline.chartHttp.mcpUrl);
    const result: ToolResult = await agent.call('draw_chart', args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
  });

  it('fetches only from its allowed origins', async () => {
    await using pipeline = await startChartPipeline();
    await using other = await startChartPipeline();
    const { heat, resource_url } = await heatAdvisories(other.resource.mcpUrl);
    await using agent = await connectMcpClient(pipeline.chartHttp.mcpUrl);
    const result = await agent.call('draw_chart', {
      abstract_data: JSON.stringify(heat),
      resource_url,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/not in this consumer's allowed origins/);
  });

  it('shows hostile cell values as text, never as markup', async () => {
    await using pipeline = await startChartPipeline([
      { event: '<script>alert(1)</script>', severity: '"><img src=x onerror=alert(2)>' },
    ]);
    const { abstract, resource_url } = (await (async () => {
      await using agent = await connectMcpClient(pipeline.resource.mcpUrl);
      return (await agent.call('get_alerts', { abstract_domains: 'event' }))
        .structuredContent as Abstract;
    })()) as Abstract;
    await using agent = await connectMcpClient(pipeline.chartHttp.mcpUrl);
    const result = await agent.call('draw_chart', {
      abstract_data: JSON.stringify(abstract),
      resource_url,
      title: '<b>title</b>',
    });
    const { chart_url } = JSON.parse(textOf(result)) as { chart_url: string };
    for (const url of [chart_url, `${pipeline.chartHttp.url}/charts`]) {
      const html = await (await fetch(url)).text();
      expect(html).not.toMatch(/<script>alert|<img src=x|<b>title<\/b>/);
    }
  });

  it('answers unknown charts with 404', async () => {
    await using pipeline = await startChartPipeline();
    for (const path of [
      '/charts/cdoesnotexist',
      '/charts/cdoesnotexist.png',
      '/charts/..%2f..%2fetc%2fpasswd',
    ]) {
      expect((await fetch(`${pipeline.chartHttp.url}${path}`)).status).toBe(404);
    }
  });
});

describe('chart-consumer over SLOP and A2S', () => {
  it('draws a chart for a SLOP agent and publishes a verifiable DrawChart capability', async () => {
    const { createChartServer } = await import('../src/chart-server.js');
    const { silentLogger } = await import('@s2sp/server');
    const { verifyCapability } = await import('@s2sp/server/a2s');
    await using pipeline = await startChartPipeline();
    const chart = createChartServer({
      allowedOrigins: [pipeline.resource.url],
      logger: silentLogger,
      slop: { requireScopes: true },
    });
    const http = await chart.server.listen();
    try {
      const { heat, resource_url } = await heatAdvisories(pipeline.resource.mcpUrl);
      const denied = await fetch(`${http.url}/tools/draw_chart`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(denied.status).toBe(403);
      const response = await fetch(`${http.url}/tools/draw_chart`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-slop-scope': 'tools.execute' },
        body: JSON.stringify({ abstract_data: heat, resource_url }),
      });
      expect(response.status).toBe(200);
      const { result } = (await response.json()) as { result: { type: string; text?: string }[] };
      expect(result.map((block) => block.type)).toEqual(['text', 'image']);
      expect(JSON.parse(result[0]?.text ?? '').rows_charted).toBe(9);

      const doc = await (await fetch(`${http.url}/.well-known/a2s/capabilities/DrawChart`)).json();
      expect(await verifyCapability(doc)).toEqual({ valid: true });
      expect(
        (doc as { execution: { steps: { definition: { endpoint: string } }[] } }).execution.steps[0]
          ?.definition.endpoint,
      ).toBe(http.mcpUrl);
    } finally {
      await chart.server.close();
    }
  });
});
