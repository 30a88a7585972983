/**
 * A 2025-era upstream session: SDK v1's client, after the 2025 `initialize` handshake, as the
 * proxy always connected. The upstream's requests to a client arrive as requests and are relayed
 * to the client whose request is in flight (`client-relay.ts`).
 *
 * @module
 */
import { Client, ResultSchema } from '../mcp-sdk.js';
import { RELAYED_CAPABILITIES } from './client-relay.js';
import type { StartDeadline } from './start-deadline.js';
import type { OpenedSession, SessionHandlers, UpstreamSession } from './upstream-session.js';
import type { OpenedTransport } from './upstream-target.js';

/**
 * Opens a 2025-era session on `transport`.
 *
 * @param transport - the opened transport (SDK v1's)
 * @param deadline - the start-up limit of this attempt
 * @param handlers - what the session does with the upstream's messages
 */
export async function openLegacySession(
  transport: OpenedTransport,
  deadline: StartDeadline,
  handlers: SessionHandlers,
): Promise<OpenedSession> {
  const next = new Client(handlers.clientInfo, { capabilities: RELAYED_CAPABILITIES });
  next.fallbackNotificationHandler = handlers.onNotification;
  next.fallbackRequestHandler = (request, extra) => handlers.relay(request, extra.signal) as never;
  next.onerror = handlers.onError;
  // Starting a server (npx, a JIT warm-up) can take longer than one request may: it has a
  // limit of its own.
  await next.connect(transport.transport, deadline.options());
  const session: UpstreamSession = {
    request: (request, requestOptions) => next.request(request, ResultSchema, requestOptions),
    notification: (notification) => next.notification(notification as never),
    close: () => next.close(),
  };
  next.onclose = () => session.onclose?.();
  return {
    session,
    era: 'legacy',
    capabilities: next.getServerCapabilities() ?? {},
    serverInfo: next.getServerVersion(),
    instructions: next.getInstructions(),
  };
}
