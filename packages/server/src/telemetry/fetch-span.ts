/**
 * The client span of a consumer's data-plane fetch, whose context travels to the resource
 * server in the request's `traceparent` header.
 *
 * @module
 */

import { DATA_PLANE_ROUTE } from './data-plane-span.js';
import { otelIfLoaded } from './otel.js';
import { inSpan, traceHeaders } from './spans.js';

/**
 * Runs a data-plane fetch in a `POST /s2sp/data/{token}` client span and hands it the trace
 * headers to send (none without OpenTelemetry). The span names the resource server's address,
 * never the URL, which holds a live token.
 *
 * @param resourceUrl - for `server.address` and `server.port` only
 * @param fetchRows - the fetch, given the headers to add
 */
export function traceFetch<T extends { readonly body: readonly unknown[] }>(
  resourceUrl: string,
  fetchRows: (headers: Record<string, string>) => Promise<T>,
): Promise<T> {
  return inSpan(
    `POST ${DATA_PLANE_ROUTE}`,
    { kind: 'CLIENT', attributes: { 'http.request.method': 'POST', ...address(resourceUrl) } },
    async (span) => {
      const fetched = await fetchRows(traceHeaders(otelIfLoaded()));
      span?.setAttribute('s2sp.rows', fetched.body.length);
      return fetched;
    },
  );
}

function address(resourceUrl: string): Record<string, string | number> {
  try {
    const url = new URL(resourceUrl);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return { 'server.address': url.hostname, 'server.port': Number(port) };
  } catch {
    return {};
  }
}
