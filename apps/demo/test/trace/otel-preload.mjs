// Loaded with `node --import` into each process of the one-trace test: registers a tracer
// provider (AsyncLocalStorage context, W3C Trace Context propagator) whose spans go to an
// in-memory exporter, and writes them as JSON to $S2SP_TEST_SPANS_FILE when the process exits.
import { writeFileSync } from 'node:fs';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

const exporter = new InMemorySpanExporter();
new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();

process.on('exit', () => {
  const spans = exporter.getFinishedSpans().map((span) => ({
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: span.attributes,
    status: span.status.code,
  }));
  writeFileSync(process.env.S2SP_TEST_SPANS_FILE, JSON.stringify(spans));
});
