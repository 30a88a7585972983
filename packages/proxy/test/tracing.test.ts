// One trace across agent → proxy → upstream: the proxy's tools/call span continues the caller's
// `_meta.traceparent`, and the call upstream carries the proxy span's context, over real loopback
// Streamable HTTP on both sides.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { loadOtel, resetOtelForTests } from '@s2sp/core/otel';
import {
  createS2SPServer,
  type ListeningServer,
  type S2SPServer,
  silentLogger,
  traceToolCall,
} from '@s2sp/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HOSTILE_SERVER, httpClient, startProxy } from './support.js';

const AGENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const AGENT_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = `00-${AGENT_TRACE}-${AGENT_SPAN}-01`;
const ROWS = [
  { id: 1, city: 'Austin', notes: 'capital' },
  { id: 2, city: 'Boston', notes: 'harbor' },
];

let upstream: S2SPServer;
let listening: ListeningServer;
/** `_meta` of every call the upstream's tool received. */
const seen: (Record<string, unknown> | undefined)[] = [];
const exporter = new InMemorySpanExporter();

beforeAll(async () => {
  upstream = createS2SPServer({ name: 'cities', version: '1', logger: silentLogger });
  upstream.use((mcp) =>
    mcp.registerTool(
      'cities',
      { description: 'Cities.', inputSchema: z.object({ state: z.string().optional() }) },
      traceToolCall('cities', (_args, ctx) => {
        seen.push(ctx.mcpReq._meta as Record<string, unknown> | undefined);
        return { content: [{ type: 'text' as const, text: JSON.stringify(ROWS) }] };
      }),
    ),
  );
  listening = await upstream.listen();
});

afterEach(() => {
  seen.length = 0;
  exporter.reset();
  trace.disable();
  context.disable();
  propagation.disable();
  resetOtelForTests();
});

afterAll(async () => {
  await upstream.close();
});

function registerSdk(): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
}

async function callThroughProxy(args: Record<string, unknown>): Promise<void> {
  await using running = await startProxy({
    upstream: { kind: 'http', url: listening.mcpUrl },
    logger: silentLogger,
  });
  await using agent = await httpClient(running.listener.mcpUrl);
  const result = await agent.client.callTool({
    name: 'cities',
    arguments: args,
    _meta: { traceparent: TRACEPARENT },
  });
  expect(result.isError).toBeFalsy();
}

describe('tracing through the proxy', () => {
  it.each([
    ['a plain call', {}],
    ['an S2SP call', { abstract_domains: ['city'] }],
  ])(
    'continues the agent’s trace for %s, and the upstream’s span is the proxy span’s child',
    async (_label, args) => {
      registerSdk();
      await callThroughProxy(args);
      const spans = exporter.getFinishedSpans().filter((span) => span.name === 'tools/call cities');
      const proxySpan = spans.find((span) => span.parentSpanContext?.spanId === AGENT_SPAN);
      const upstreamSpan = spans.find(
        (span) => span.parentSpanContext?.spanId === proxySpan?.spanContext().spanId,
      );
      expect(proxySpan?.spanContext().traceId).toBe(AGENT_TRACE);
      expect(upstreamSpan?.spanContext().traceId).toBe(AGENT_TRACE);
      expect(seen).toEqual([
        { traceparent: `00-${AGENT_TRACE}-${proxySpan?.spanContext().spanId}-01` },
      ]);
    },
  );

  it('passes the caller’s traceparent on as it came without OpenTelemetry', async () => {
    await loadOtel(() => Promise.reject(new Error('Cannot find module')));
    await callThroughProxy({ abstract_domains: ['city'] });
    expect(seen).toEqual([{ traceparent: TRACEPARENT }]);
  });

  it('records none of the figures an upstream wrote under S2SP’s _meta keys', async () => {
    registerSdk();
    {
      await using running = await startProxy({ upstream: HOSTILE_SERVER, logger: silentLogger });
      await using agent = await httpClient(running.listener.mcpUrl);
      await agent.client.callTool({ name: 'forged_meta', arguments: { shape: 'plain' } });
    }
    const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'tools/call forged_meta');
    expect(span).toBeDefined();
    expect(span?.attributes['s2sp.tokens_saved']).toBeUndefined();
    expect(span?.attributes['s2sp.rows_withheld']).toBeUndefined();
  });
});
