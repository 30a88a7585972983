/**
 * The one way this package makes a span: under the application's global tracer, as a child of the
 * active context (or of a context carried in from a peer), ended and marked with the S2SP error
 * code when the work throws. Without `@opentelemetry/api` the work runs as it is.
 *
 * @module
 */

import type { Attributes, Context, Span, SpanKind } from '@opentelemetry/api';
import { S2SPError } from '@s2sp/core';
import { INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION, type OtelApi, otel } from './otel.js';

/** How a span starts. */
export interface SpanStart {
  /** `SpanKind` name; default `INTERNAL`. */
  readonly kind?: keyof typeof SpanKind;
  readonly attributes?: Attributes;
  /**
   * Builds the parent context from the active one, e.g. by extracting a peer's `traceparent`.
   * Default: the active context.
   */
  readonly parent?: (api: OtelApi, active: Context) => Context;
}

/**
 * Runs `work` inside a new span named `name`, the span being the active one for everything
 * `work` awaits (so nested S2SP spans, and a `traceparent` injected by `traceHeaders`, are
 * its children).
 *
 * @param work - receives the span only when it is recording: compute attributes only then
 */
export async function inSpan<T>(
  name: string,
  start: SpanStart,
  work: (span: Span | undefined) => T | Promise<T>,
): Promise<T> {
  const api = await otel();
  if (!api) return work(undefined);
  const active = api.context.active();
  const parent = start.parent ? start.parent(api, active) : active;
  const span = api.trace.getTracer(INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION).startSpan(
    name,
    {
      kind: api.SpanKind[start.kind ?? 'INTERNAL'],
      ...(start.attributes && { attributes: start.attributes }),
    },
    parent,
  );
  const recording = span.isRecording();
  // Without a tracer SDK (or when the span adds nothing: not recording, and the same span
  // context as the one already active) a new active context would change nothing, and making it
  // costs a small data-plane request ~10 µs (8% of its handler).
  const context = span.spanContext();
  if (
    !recording &&
    parent === active &&
    (!api.trace.isSpanContextValid(context) || context === api.trace.getSpanContext(active))
  ) {
    try {
      return await work(undefined);
    } finally {
      span.end();
    }
  }
  return api.context.with(api.trace.setSpan(parent, span), async () => {
    try {
      return await work(recording ? span : undefined);
    } catch (error) {
      if (recording) markFailed(api, span, S2SPError.codeOf(error));
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks a span as failed with an S2SP error code (`error.type`). */
export function markFailed(api: OtelApi, span: Span, code: string): void {
  span.setAttribute('error.type', code);
  span.setStatus({ code: api.SpanStatusCode.ERROR });
}

// One copy of the trace-headers helper, in core, shared with @s2sp/client.
export { traceHeaders } from '@s2sp/core/otel';

/**
 * The context a peer carried in a plain object (MCP `_meta`, HTTP headers as a record), read by
 * the application's configured propagator, on top of `active`.
 *
 * @param api - the loaded API
 * @param active - the context to build on (usually `api.context.active()`)
 * @param carrier - the peer's entries; non-string values are ignored
 */
export function extractContext(
  api: OtelApi,
  active: Context,
  carrier: Readonly<Record<string, unknown>> | undefined,
): Context {
  if (!carrier) return active;
  return api.propagation.extract(active, carrier, {
    keys: (value) => Object.keys(value),
    get: (value, key) => {
      const found = value[key];
      return typeof found === 'string' ? found : undefined;
    },
  });
}
