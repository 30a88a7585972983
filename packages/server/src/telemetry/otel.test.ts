import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createMemoryStore } from '@s2sp/core/store';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { prepareTable, serializeTable } from '../resource/table.js';
import { loadOtel, otel, otelIfLoaded, resetOtelForTests } from './otel.js';
import { extractContext, inSpan, traceHeaders } from './spans.js';
import { traceStore } from './traced-store.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
  resetOtelForTests();
});

describe('without @opentelemetry/api installed', () => {
  it('runs the work as it is, makes no tracer and sends no headers', async () => {
    resetOtelForTests();
    const getTracer = vi.spyOn(trace, 'getTracer');
    expect(await loadOtel(() => Promise.reject(new Error('Cannot find module')))).toBeUndefined();
    expect(otelIfLoaded()).toBeUndefined();
    const seen: unknown[] = [];
    const answer = await inSpan('work', {}, (span) => {
      seen.push(span);
      return 42;
    });
    expect(answer).toBe(42);
    expect(seen).toEqual([undefined]);
    expect(traceHeaders(otelIfLoaded())).toEqual({});
    const store = traceStore(createMemoryStore());
    await store.put('k', serializeTable(prepareTable([{ a: 1 }])), { ttlMs: 60_000 });
    expect((await store.take('k'))?.tableRows).toBe(1);
    expect(getTracer).not.toHaveBeenCalled();
    getTracer.mockRestore();
  });
});

describe('with @opentelemetry/api but no SDK registered', () => {
  it('hands the work no span (nothing recording, no attributes computed) and injects nothing', async () => {
    resetOtelForTests();
    expect(await otel()).toBeDefined();
    const seen: unknown[] = [];
    await inSpan('work', { kind: 'SERVER' }, (span) => {
      seen.push(span);
      expect(traceHeaders(otelIfLoaded())).toEqual({});
    });
    expect(seen).toEqual([undefined]);
  });

  it('rethrows the work’s error, and keeps a peer’s trace for what the work sends on', async () => {
    resetOtelForTests();
    expect(await otel()).toBeDefined();
    await expect(
      inSpan('work', {}, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    // A propagator but no tracer SDK (a gateway that only forwards traces): the peer's context
    // becomes the parent, and what the work sends carries the same trace.
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const api = otelIfLoaded();
      if (!api) throw new Error('expected the OpenTelemetry API');
      const sent = await inSpan(
        'work',
        { parent: (a, active) => extractContext(a, active, { traceparent: TRACEPARENT }) },
        () => traceHeaders(api),
      );
      expect(sent.traceparent?.split('-')[1]).toBe(TRACEPARENT.split('-')[1]);
      // Without a peer's context nothing is made up.
      expect(await inSpan('work', {}, () => traceHeaders(api))).toEqual({});
    } finally {
      propagation.disable();
      context.disable();
    }
  });
});

describe('with an SDK registered by the application', () => {
  const exporter = new InMemorySpanExporter();

  it('continues a peer’s trace, nests spans and injects the child’s traceparent', async () => {
    resetOtelForTests();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    let headers: Record<string, string> = {};
    await inSpan(
      'outer',
      {
        kind: 'SERVER',
        parent: (api, active) => extractContext(api, active, { traceparent: TRACEPARENT }),
      },
      () =>
        inSpan('inner', { kind: 'CLIENT' }, () => {
          headers = traceHeaders(otelIfLoaded());
        }),
    );
    const [inner, outer] = exporter.getFinishedSpans();
    expect(outer?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(outer?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(inner?.parentSpanContext?.spanId).toBe(outer?.spanContext().spanId);
    expect(headers.traceparent).toBe(
      `00-0af7651916cd43dd8448eb211c80319c-${inner?.spanContext().spanId}-01`,
    );
  });

  it('marks a failed span with the S2SP error code and rethrows', async () => {
    exporter.reset();
    const { S2SPError } = await import('@s2sp/core');
    await expect(
      inSpan('failing', {}, () => {
        throw new S2SPError('not_found', 'gone');
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes['error.type']).toBe('not_found');
    expect(span?.status.code).toBe(2);
  });

  it('ignores a malformed traceparent from a peer (a new trace, not a crash)', async () => {
    exporter.reset();
    await inSpan(
      'root',
      { parent: (api, active) => extractContext(api, active, { traceparent: 'zz-not-a-trace' }) },
      () => undefined,
    );
    const [span] = exporter.getFinishedSpans();
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('wraps a store’s put and take in spans and leaves its other members alone', async () => {
    exporter.reset();
    const inner = createMemoryStore();
    const store = traceStore(inner);
    expect(traceStore(store)).toBe(store);
    await store.put('k', serializeTable(prepareTable([{ a: 1 }, { a: 2 }])), { ttlMs: 60_000 });
    expect((await store.stats()).entries).toBe(1);
    expect((await store.take('k', [1]))?.ends.length).toBe(1);
    expect(await store.take('k')).toBeUndefined();
    expect(
      exporter.getFinishedSpans().map((span) => [span.name, span.attributes['s2sp.found']]),
    ).toEqual([
      ['s2sp.store.put', undefined],
      ['s2sp.store.take', true],
      ['s2sp.store.take', false],
    ]);
  });
});
