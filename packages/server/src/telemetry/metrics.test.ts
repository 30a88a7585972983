import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { estimateTokens, silentLogger } from '@s2sp/server';
import { afterAll, describe, expect, it } from 'vitest';
import { createS2SP } from '../runtime/s2sp.js';
import { METRIC_NAMES } from './metrics.js';
import { loadOtel } from './otel.js';
import { traceToolCall } from './tool-span.js';

/** A reader the test collects from when it wants. */
class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const reader = new TestReader();
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
afterAll(() => metrics.disable());

/** Every data point, as `name{attributes}` → value (sums for counters, the last value for gauges). */
async function points(): Promise<Record<string, number>> {
  const { resourceMetrics } = await reader.collect();
  const out: Record<string, number> = {};
  for (const scope of resourceMetrics.scopeMetrics)
    for (const metric of scope.metrics)
      for (const point of metric.dataPoints) {
        const labels = Object.entries(point.attributes)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(',');
        out[`${metric.descriptor.name}{${labels}}`] = point.value as number;
      }
  return out;
}

const rows = Array.from({ length: 12 }, (_, i) => ({
  event: i < 3 ? 'Heat Advisory' : 'Flood Watch',
  description: `Heat index values up to ${100 + i}, stay hydrated.`,
  area: 'Bexar',
}));

describe('S2SP metrics', () => {
  it('counts withheld rows and columns, tokens saved, redemptions by outcome, bytes served and the store', async () => {
    await loadOtel();
    const s2sp = createS2SP({ publicUrl: 'https://weather.example', logger: silentLogger });
    const tool = traceToolCall(
      'get_alerts',
      (args: Record<string, unknown>) => s2sp.resourceResult(rows, args),
      'resource',
    );
    const result = await tool(
      { abstract_domains: 'event', filter: { event: 'Heat Advisory' } },
      {},
    );
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    const saved = estimateTokens(JSON.stringify(rows)) - estimateTokens(text);
    const url = new URL((result.structuredContent as { resource_url: string }).resource_url);
    const post = () =>
      s2sp.dataPlane.request(url.pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    const before = await points();
    expect(before[`${METRIC_NAMES.storeEntries}{}`]).toBe(1);
    const served = await post();
    expect(served.status).toBe(200);
    const bytes = (await served.arrayBuffer()).byteLength;
    expect((await post()).status).toBe(404);
    const bad = await s2sp.dataPlane.request(url.pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(bad.status).toBe(400);

    const after = await points();
    expect(after).toMatchObject({
      [`${METRIC_NAMES.rowsWithheld}{gen_ai.tool.name=get_alerts}`]: 9,
      [`${METRIC_NAMES.columnsWithheld}{gen_ai.tool.name=get_alerts}`]: 2,
      [`${METRIC_NAMES.tokensSaved}{gen_ai.tool.name=get_alerts}`]: saved,
      [`${METRIC_NAMES.redemptions}{s2sp.outcome=ok}`]: 1,
      [`${METRIC_NAMES.redemptions}{s2sp.outcome=not_found}`]: 1,
      [`${METRIC_NAMES.redemptions}{s2sp.outcome=invalid_request}`]: 1,
      [`${METRIC_NAMES.bytesServed}{}`]: bytes,
      [`${METRIC_NAMES.storeEntries}{}`]: 0,
      [`${METRIC_NAMES.storeBytes}{}`]: 0,
    });
    expect(saved).toBeGreaterThan(0);
    await s2sp.close();
  });
});
