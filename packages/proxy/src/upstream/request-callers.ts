/**
 * Whose each message of an upstream session is. The proxy forwards requests made for downstream
 * sessions; what the upstream sends meanwhile (a notification, a request to a client) belongs to
 * one of them when the wire relates it to a request, and may belong to one when only one has a
 * request in flight.
 *
 * The session each request is made for (and the downstream request it forwards, for relaying the
 * upstream's requests to its client) is carried through the SDK client's asynchronous work: the
 * Streamable HTTP transport reads a request's response stream in a task started by that
 * request's send, so a message read from it is handled with that request's caller as the store.
 * Messages read elsewhere (stdio, the GET stream) have none.
 *
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RelayTarget } from './client-relay.js';

/**
 * Which downstream session an upstream notification belongs to.
 *
 * - `request`: it came on the Streamable HTTP response stream of a request made for `session`
 *   (an MCP server sends a request's notifications there: the SDK's `relatedRequestId`).
 * - `only-caller`: it cannot be told (stdio, or the standalone GET stream), but `session` was the
 *   only one with a request in flight.
 * - `unknown`: neither; no session may be assumed.
 */
export type NotificationOrigin =
  | { readonly by: 'request' | 'only-caller'; readonly session: object }
  | { readonly by: 'unknown'; readonly session?: undefined };

/**
 * Chooses where an upstream request to a client goes when no forwarded request relates it,
 * given the newest forwarded request in flight that can reach its client (see
 * `UpstreamOptions.unrelated`).
 */
export type UnrelatedRequest = (
  method: string,
  newest: RelayTarget | undefined,
) => RelayTarget | undefined;

/** The requests in flight of one upstream session, and whose its messages are. */
export interface RequestCallers {
  /**
   * Runs `send` (one forwarded request) as made for `session`, with `relay` reaching its client:
   * what the upstream sends with it is attributed to them.
   */
  run<T>(session: object, relay: RelayTarget | undefined, send: () => Promise<T>): Promise<T>;
  /** Whose the notification being handled now is. */
  originOf(): NotificationOrigin;
  /**
   * The downstream request an upstream request to a client (`method`) is for: the one it came
   * with, else what `unrelated` decides.
   */
  relayTargetOf(method: string): RelayTarget | undefined;
}

interface Caller {
  readonly session: object;
  readonly relay: RelayTarget | undefined;
  /** When it was sent, among this session's requests (newest is highest). */
  readonly order: number;
}

/**
 * Creates the record of one upstream session's requests in flight.
 *
 * @param unrelated - where a request to a client that no forwarded request relates goes
 *   (default: nowhere, refused)
 */
export function createRequestCallers(unrelated?: UnrelatedRequest): RequestCallers {
  const callers = new AsyncLocalStorage<Caller>();
  // Requests in flight per session, newest last, for messages that cannot be attributed.
  const inFlight = new Map<object, Caller[]>();
  let sent = 0;
  return {
    async run(session, relay, send) {
      const call: Caller = { session, relay, order: ++sent };
      inFlight.set(session, [...(inFlight.get(session) ?? []), call]);
      try {
        return await callers.run(call, send);
      } finally {
        const left = (inFlight.get(session) ?? []).filter((other) => other !== call);
        if (left.length > 0) inFlight.set(session, left);
        else inFlight.delete(session);
      }
    },
    originOf() {
      const own = callers.getStore();
      if (own) return { by: 'request', session: own.session };
      if (inFlight.size === 1) {
        const [only] = inFlight.keys();
        if (only) return { by: 'only-caller', session: only };
      }
      return { by: 'unknown' };
    },
    relayTargetOf(method) {
      const own = callers.getStore();
      if (own) return own.relay;
      let newest: Caller | undefined;
      for (const calls of inFlight.values()) {
        const last = calls.findLast((call) => call.relay !== undefined);
        if (last && (!newest || last.order > newest.order)) newest = last;
      }
      return unrelated?.(method, newest?.relay);
    },
  };
}
