/**
 * Resource subscriptions, shared by every downstream session over the one upstream connection:
 * the upstream is subscribed while at least one session wants a URI, and a
 * `notifications/resources/updated` goes only to the sessions that subscribed to it.
 *
 * @module
 */
import type { Upstream } from '../upstream/upstream.js';

/** The subscription table. Sessions are any objects (the downstream `Server`s). */
export interface Subscriptions {
  subscribe(session: object, uri: string): Promise<void>;
  unsubscribe(session: object, uri: string): Promise<void>;
  /** The sessions subscribed to `uri`. */
  sessionsFor(uri: string): object[];
  /** Forgets a closed session, unsubscribing upstream where it was the last one. */
  drop(session: object): Promise<void>;
  /** Subscribes a restarted upstream to every URI someone still wants. */
  renew(): Promise<void>;
}

/** Creates the subscription table for `upstream`. */
export function createSubscriptions(upstream: Upstream): Subscriptions {
  const byUri = new Map<string, Set<object>>();
  const send = (method: 'resources/subscribe' | 'resources/unsubscribe', uri: string) =>
    upstream.request({ method, params: { uri } });

  const unsubscribe = async (session: object, uri: string) => {
    const sessions = byUri.get(uri);
    if (!sessions?.delete(session) || sessions.size > 0) return;
    byUri.delete(uri);
    await send('resources/unsubscribe', uri);
  };

  return {
    async subscribe(session, uri) {
      const sessions = byUri.get(uri);
      if (sessions) {
        sessions.add(session);
        return;
      }
      await send('resources/subscribe', uri);
      byUri.set(uri, new Set([session]));
    },
    unsubscribe,
    sessionsFor: (uri) => [...(byUri.get(uri) ?? [])],
    async drop(session) {
      for (const uri of [...byUri.keys()]) await unsubscribe(session, uri).catch(() => {});
    },
    async renew() {
      for (const uri of byUri.keys()) await send('resources/subscribe', uri).catch(() => {});
    },
  };
}
