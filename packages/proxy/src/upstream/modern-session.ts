/**
 * A 2026-07-28 upstream session: SDK v2's client, from the era probe's verdict (no second probe).
 * What that revision does differently from the 2025 one the proxy's clients may speak is done
 * here, so that the rest of the proxy forwards to either kind of session alike:
 *
 * - **Input rounds** (`input_required`). A 2025 client's call is fulfilled here: the SDK hands
 *   each embedded request of a round to the handlers below, which relay it to the client whose
 *   call it is (`client-relay.ts`), and retries the call, round for round. A 2026-07-28 client's
 *   request goes as it came and its rounds come back to it (`allowInputRequired`,
 *   `client-round.ts`): it answers them itself.
 * - **Subscriptions and list changes** come only on a `subscriptions/listen` stream
 *   (`listen-stream.ts`): `resources/subscribe` and `resources/unsubscribe` change its filter.
 * - **Log levels** are per request: `logging/setLevel` sets the level each request of the
 *   session carries in its envelope (a 2026-07-28 client's own envelope carries its own).
 * - **Results** lose the `_meta` of the hop they came on (`hop-meta.ts`); **errors** become SDK
 *   v1's (`modern-errors.ts`).
 *
 * @module
 */
import { z } from 'zod';
import {
  type Implementation,
  LOG_LEVEL_META_KEY,
  ModernClient,
  type PriorDiscovery,
  type Request,
  type ServerCapabilities,
} from '../mcp-sdk.js';
import { RELAYED_CAPABILITIES } from './client-relay.js';
import { type ClientRound, withClientRound } from './client-round.js';
import { dropHopMeta } from './hop-meta.js';
import { createListenStream } from './listen-stream.js';
import { asMcpError } from './modern-errors.js';
import type { StartDeadline } from './start-deadline.js';
import type { OpenedSession, SessionHandlers, UpstreamSession } from './upstream-session.js';
import type { OpenedTransport } from './upstream-target.js';

/** What a 2026-07-28 session needs besides {@link SessionHandlers}. */
export interface ModernSessionHandlers extends SessionHandlers {
  /** Time limit of a listen stream opened after start-up (a subscription changed), in ms. */
  readonly requestTimeoutMs: number;
  /** The session's listen stream could not open at start-up (it goes on without). */
  readonly onListenFailed: (error: Error) => void;
}

/** The 2026-07-28 upstream's results, as they come (the proxy passes on what it does not know). */
const AnyResult = z.looseObject({});

/** The requests to a client a 2026-07-28 server embeds in its rounds. */
const ROUND_METHODS = ['sampling/createMessage', 'elicitation/create', 'roots/list'] as const;

/**
 * Opens a 2026-07-28 session on `transport`.
 *
 * @param prior - the probe's verdict (the server's `server/discover` answer)
 * @param transport - the opened transport (SDK v2's)
 * @param deadline - the start-up limit of this attempt
 * @param handlers - what the session does with the upstream's messages
 */
export async function openModernSession(
  prior: PriorDiscovery,
  transport: OpenedTransport,
  deadline: StartDeadline,
  handlers: ModernSessionHandlers,
): Promise<OpenedSession> {
  const next = new ModernClient(handlers.clientInfo, {
    capabilities: RELAYED_CAPABILITIES,
    versionNegotiation: { mode: 'auto' },
  });
  for (const method of ROUND_METHODS) {
    next.setRequestHandler(method, ((
      request: Request,
      ctx: { mcpReq?: { signal?: AbortSignal } },
    ) =>
      handlers.relay(
        request as never,
        ctx?.mcpReq?.signal ?? new AbortController().signal,
      )) as never);
  }
  next.fallbackNotificationHandler = handlers.onNotification as never;
  next.onerror = handlers.onError;
  await next.connect(transport.transport as never, { ...deadline.options(), prior });
  const declared = (next.getServerCapabilities() ?? {}) as ServerCapabilities;
  let connecting = true;
  let logLevel: unknown;
  const listening = createListenStream({
    declared,
    // The first stream opens within the start-up limit; later ones (a subscription changed)
    // within a request's.
    listen: (filter) =>
      next
        .listen(filter, {
          timeout: connecting ? deadline.left() || 1 : handlers.requestTimeoutMs,
        })
        .catch((error) => {
          throw asMcpError(error);
        }),
  });
  await listening.open().catch(handlers.onListenFailed);
  connecting = false;
  const session: UpstreamSession = {
    request: async (request, requestOptions, round) => {
      // That revision's subscriptions are the listen stream's filter, not requests.
      const uri = (request.params as { uri?: unknown } | undefined)?.uri;
      if (request.method === 'resources/subscribe' && typeof uri === 'string') {
        await listening.subscribe(uri);
        return {};
      }
      if (request.method === 'resources/unsubscribe' && typeof uri === 'string') {
        await listening.unsubscribe(uri);
        return {};
      }
      // Nor has it `logging/setLevel`: a level is asked for per request, in its envelope.
      if (request.method === 'logging/setLevel') {
        logLevel = (request.params as { level?: unknown } | undefined)?.level;
        return {};
      }
      const own: ClientRound | undefined =
        round ??
        (logLevel === undefined ? undefined : { envelope: { [LOG_LEVEL_META_KEY]: logLevel } });
      const result = await next
        .request((own ? withClientRound(request, own) : request) as never, AnyResult, {
          ...requestOptions,
          ...(round && { allowInputRequired: true }),
        } as never)
        .catch((error) => {
          throw asMcpError(error);
        });
      dropHopMeta(result as Record<string, unknown>);
      return result;
    },
    notification: (notification) => next.notification(notification as never),
    close: async () => {
      await listening.close().catch(() => {});
      await next.close();
    },
  };
  next.onclose = () => session.onclose?.();
  return {
    session,
    era: 'modern',
    capabilities: declared,
    serverInfo: next.getServerVersion() as Implementation | undefined,
    instructions: next.getInstructions(),
  };
}
