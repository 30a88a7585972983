// The data plane's Node front door makes the same telemetry as the Hono route: one server span
// per redemption, child of the consumer's traceparent, with its status and outcome, and the
// redemption metrics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { generateToken, tokenStorageKey } from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataPlaneApp } from '../src/http/index.js';
import { toNodeHandler } from '../src/node.js';
import { prepareTable, serializeTable } from '../src/resource/table.js';
import { DATA_PLANE_ROUTE } from '../src/telemetry/data-plane-span.js';
import { METRIC_NAMES } from '../src/telemetry/metrics.js';
import { loadOtel, resetOtelForTests } from '../src/telemetry/otel.js';

class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const exporter = new InMemorySpanExporter();
const reader = new TestReader();
const store = createMemoryStore();
let server: Server;

beforeAll(async () => {
  resetOtelForTests();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  await loadOtel();
  server = createServer(toNodeHandler(createDataPlaneApp({ store }))).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  trace.disable();
  context.disable();
  propagation.disable();
  metrics.disable();
  resetOtelForTests();
});

describe('telemetry on the Node front door', () => {
  it('makes one span per redemption under the traceparent, and counts outcomes and bytes', async () => {
    const token = generateToken();
    const table = serializeTable(prepareTable([{ a: 1 }, { a: 2 }]));
    await store.put(await tokenStorageKey(token), table, { ttlMs: 60_000 });
    const { port } = server.address() as AddressInfo;
    const post = (body: string) =>
      fetch(`http://127.0.0.1:${port}/s2sp/data/${token}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          traceparent: `00-${TRACE_ID}-b7ad6b7169203331-01`,
        },
        body,
      });
    const bad = await post('{');
    expect(bad.status).toBe(400);
    const served = await post('{}');
    expect(served.status).toBe(200);
    const bytes = (await served.arrayBuffer()).byteLength;
    expect((await post('{}')).status).toBe(404);

    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual(Array(3).fill(`POST ${DATA_PLANE_ROUTE}`));
    expect(spans.map((span) => span.spanContext().traceId)).toEqual(Array(3).fill(TRACE_ID));
    expect(spans.map((span) => span.attributes['s2sp.outcome'])).toEqual([
      'invalid_request',
      'ok',
      'not_found',
    ]);
    expect(spans.map((span) => span.attributes['http.response.status_code'])).toEqual([
      400, 200, 404,
    ]);
    expect(spans[1]?.attributes['s2sp.bytes']).toBe(bytes);

    const { resourceMetrics } = await reader.collect();
    const points: Record<string, number> = {};
    for (const scope of resourceMetrics.scopeMetrics)
      for (const metric of scope.metrics)
        for (const point of metric.dataPoints)
          points[`${metric.descriptor.name}${JSON.stringify(point.attributes)}`] =
            point.value as number;
    expect(points).toMatchObject({
      [`${METRIC_NAMES.redemptions}{"s2sp.outcome":"ok"}`]: 1,
      [`${METRIC_NAMES.redemptions}{"s2sp.outcome":"not_found"}`]: 1,
      [`${METRIC_NAMES.redemptions}{"s2sp.outcome":"invalid_request"}`]: 1,
      [`${METRIC_NAMES.bytesServed}{}`]: bytes,
    });
  });
});
