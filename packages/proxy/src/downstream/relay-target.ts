/**
 * How the relay (`upstream/client-relay.ts`) reaches the client of one downstream request of a
 * 2025-era session: a request sent as part of it (SDK v1's `extra.sendRequest`, which rides that
 * request's own response stream), checked against what the client declared at `initialize`.
 *
 * @module
 */

import {
  type ClientCapabilities,
  type Request,
  type RequestOptions,
  ResultSchema,
  type Server,
} from '../mcp-sdk.js';
import type { RelayTarget } from '../upstream/client-relay.js';

/** SDK v1's handler `extra`, as far as the relay needs it. */
interface LegacyExtra {
  readonly sendRequest?: (
    request: Request,
    schema: typeof ResultSchema,
    options?: RequestOptions,
  ) => Promise<Record<string, unknown>>;
}

/**
 * The relay target of one request of a 2025-era session.
 *
 * @param server - the session's downstream server (its client's capabilities)
 * @param extra - the request handler's `extra`
 * @param client - the client's `clientKey`
 */
export function legacyRelayTarget(
  server: Server,
  extra: unknown,
  client: string,
): RelayTarget | undefined {
  const send = (extra as LegacyExtra).sendRequest;
  if (send === undefined) return undefined;
  return {
    client,
    capabilities: (): ClientCapabilities | undefined => server.getClientCapabilities(),
    send: (request, { signal, timeoutMs }) =>
      send(request, ResultSchema, { signal, timeout: timeoutMs }),
  };
}

/**
 * The relay target of a 2025-era session outside any request (on its standalone stream): for a
 * `roots/list` no request relates, while the session is the proxy's only one.
 *
 * @param server - the session's downstream server
 * @param client - the client's `clientKey`, if known
 */
export function sessionRelayTarget(server: Server, client: string): RelayTarget {
  return {
    client,
    capabilities: () => server.getClientCapabilities(),
    send: (request, { signal, timeoutMs }) =>
      server.request(request as never, ResultSchema, { signal, timeout: timeoutMs }),
  };
}
