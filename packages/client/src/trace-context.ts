import { isPlainObject } from '@s2sp/core/json';
import { otel, traceHeaders } from '@s2sp/core/otel';

/**
 * The `_meta` of an outgoing MCP tool call with the agent's trace context in it: the active
 * span's `traceparent` (and `tracestate`), written by the application's propagator, so that the
 * resource or consumer server's tool span continues the agent's trace. Entries the caller put in
 * `_meta` win, a trace context of its own included. `undefined` when there is nothing to add:
 * without `@opentelemetry/api`, without a registered SDK or without an active span.
 *
 * @param meta - the call's own `_meta`, if any
 */
export async function withTraceContext(
  meta: unknown,
): Promise<Record<string, unknown> | undefined> {
  const context = traceHeaders(await otel());
  if (Object.keys(context).length === 0) return undefined;
  return { ...context, ...(isPlainObject(meta) ? meta : {}) };
}
