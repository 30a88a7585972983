// The agent's trace continues into the server: withS2SP puts the active span's W3C trace context
// in `_meta` of every tool call, sent to a real loopback MCP server over Streamable HTTP.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { PROTOCOL } from '@s2sp/core';
import { resetOtelForTests } from '@s2sp/core/otel';
import {
  createS2SPServer,
  type ListeningServer,
  type S2SPServer,
  silentLogger,
  traceToolCall,
} from '@s2sp/server';
import { connectSdkClient, runTitle, SDK_CLIENT_RUNS, type SdkClientRun } from '@s2sp/test-utils';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withS2SP } from '../src/mcp-sdk.js';

let server: S2SPServer;
let listening: ListeningServer;
/** `_meta` of every call the server's `echo` tool received. */
const seen: (Record<string, unknown> | undefined)[] = [];

beforeAll(async () => {
  server = createS2SPServer({ name: 'traced', version: '1', logger: silentLogger });
  server.use((mcp) =>
    mcp.registerTool(
      'echo',
      { description: 'Records the call.', inputSchema: z.object({}) },
      // The server's tool span continues the trace it finds in _meta.
      traceToolCall('echo', (_args, ctx) => {
        seen.push(ctx.mcpReq._meta as Record<string, unknown> | undefined);
        return { content: [{ type: 'text' as const, text: 'ok' }] };
      }),
    ),
  );
  listening = await server.listen();
});

afterEach(() => {
  seen.length = 0;
  trace.disable();
  context.disable();
  propagation.disable();
  resetOtelForTests();
});

afterAll(async () => {
  await server.close();
});

let run: SdkClientRun;

/** The client of the running era, wrapped; one `_meta.traceparent` carries the trace in both. */
async function connect(options: Parameters<typeof withS2SP>[1] = {}) {
  return withS2SP((await connectSdkClient(listening.mcpUrl, run)).client, options);
}

const exporter = new InMemorySpanExporter();

function registerSdk(): void {
  exporter.reset();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
}

describe.each(SDK_CLIENT_RUNS.map((r) => [runTitle(r), r] as const))(
  'withS2SP and trace context (%s)',
  (_title, current) => {
    beforeAll(() => {
      run = current;
    });

    it('sends the active span’s traceparent in _meta, keeping the caller’s own entries', async () => {
      registerSdk();
      const client = await connect();
      try {
        const tracer = trace.getTracer('agent');
        const span = tracer.startSpan('agent turn');
        await context.with(trace.setSpan(context.active(), span), () =>
          client.callTool({ name: 'echo', arguments: {}, _meta: { progressToken: 7 } }),
        );
        span.end();
        const { traceId, spanId } = span.spanContext();
        expect(seen).toHaveLength(1);
        expect(seen[0]?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
        expect(seen[0]?.progressToken).toBe(7);
        // One trace: the server's tool span is the agent span's child.
        const toolSpan = exporter.getFinishedSpans().find((s) => s.name === 'tools/call echo');
        expect(toolSpan?.spanContext().traceId).toBe(traceId);
        expect(toolSpan?.parentSpanContext?.spanId).toBe(spanId);
      } finally {
        await client.close();
      }
    });

    it('sends the declared encoding in the same _meta as the trace context', async () => {
      registerSdk();
      const client = await connect({ abstractEncoding: 'compact' });
      try {
        const span = trace.getTracer('agent').startSpan('agent turn');
        await context.with(trace.setSpan(context.active(), span), () =>
          client.callTool({ name: 'echo', arguments: {}, _meta: { progressToken: 7 } }),
        );
        span.end();
        const { traceId, spanId } = span.spanContext();
        expect(seen[0]?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
        expect(seen[0]?.[PROTOCOL.abstractEncodingMeta]).toBe('compact');
        expect(seen[0]?.progressToken).toBe(7);
        // The caller's own entry wins over the option.
        await client.callTool({
          name: 'echo',
          arguments: {},
          _meta: { [PROTOCOL.abstractEncodingMeta]: 'json' },
        });
        expect(seen[1]?.[PROTOCOL.abstractEncodingMeta]).toBe('json');
      } finally {
        await client.close();
      }
    });

    it('keeps a traceparent the caller set itself', async () => {
      registerSdk();
      const client = await connect();
      const own = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      try {
        const span = trace.getTracer('agent').startSpan('agent turn');
        await context.with(trace.setSpan(context.active(), span), () =>
          client.callTool({ name: 'echo', arguments: {}, _meta: { traceparent: own } }),
        );
        span.end();
        expect(seen[0]?.traceparent).toBe(own);
      } finally {
        await client.close();
      }
    });

    it('adds nothing outside a span, and nothing without OpenTelemetry', async () => {
      registerSdk();
      let client = await connect();
      try {
        await client.callTool({ name: 'echo', arguments: {} });
      } finally {
        await client.close();
      }
      resetOtelForTests();
      // `@opentelemetry/api` "not installed": the shared loader finds nothing.
      const { loadOtel } = await import('@s2sp/core/otel');
      await loadOtel(() => Promise.reject(new Error('Cannot find module')));
      client = await connect();
      try {
        const span = trace.getTracer('agent').startSpan('agent turn');
        await context.with(trace.setSpan(context.active(), span), () =>
          client.callTool({ name: 'echo', arguments: {} }),
        );
        span.end();
      } finally {
        await client.close();
      }
      expect(seen).toHaveLength(2);
      expect(seen.map((meta) => meta?.traceparent)).toEqual([undefined, undefined]);
    });
  },
);
