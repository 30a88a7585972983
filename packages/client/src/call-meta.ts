import { isPlainObject } from '@s2sp/core/json';
import { otel, traceHeaders } from '@s2sp/core/otel';

/**
 * The `_meta` of an outgoing MCP tool call: `entries` (what S2SP adds: the declared encoding, the
 * trace context) under the call's own `_meta`, whose entries win, so a caller can override any
 * of ours. `undefined` when there is nothing to add, so the call goes out as it was.
 *
 * @param meta - the call's own `_meta`, if any
 * @param entries - what S2SP adds
 */
export function callMeta(
  meta: unknown,
  entries: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> | undefined {
  if (entries === undefined || Object.keys(entries).length === 0) return undefined;
  return { ...entries, ...(isPlainObject(meta) ? meta : {}) };
}

/**
 * The agent's trace context for a call's `_meta`: the active span's `traceparent` (and
 * `tracestate`), written by the application's propagator, so that the resource or consumer
 * server's tool span continues the agent's trace. Empty without `@opentelemetry/api`, without a
 * registered SDK or without an active span.
 */
export async function traceContext(): Promise<Record<string, string>> {
  return traceHeaders(await otel());
}
