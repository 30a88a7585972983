/**
 * Resource subscriptions over one upstream session, counted by who wants them: the upstream is
 * subscribed while at least one holder wants a URI, and a `notifications/resources/updated` goes
 * only to the holders that subscribed to it. A holder is any object: a 2025-era downstream
 * session (its `Server`, which subscribes with `resources/subscribe`) or one 2026-07-28
 * `subscriptions/listen` stream (its `resourceSubscriptions`). The proxy keeps one table per
 * upstream session — every client's when the upstream is shared, else each client's own — so
 * that a URI two holders want stays subscribed until the last lets it go, whichever the
 * upstream's revision (a 2026-07-28 session turns the one `resources/subscribe` it is sent into
 * its listen filter, see `upstream/listen-stream.ts`).
 *
 * @module
 */
import type { Upstream } from '../upstream/upstream.js';

/** The subscription table. Holders are any objects (see the module). */
export interface Subscriptions {
  /** Adds `session` to the holders of `uri`, subscribing upstream if it is the first. */
  subscribe(session: object, uri: string): Promise<void>;
  /** Removes `session` from the holders of `uri`, unsubscribing upstream if it was the last. */
  unsubscribe(session: object, uri: string): Promise<void>;
  /** The holders subscribed to `uri`. */
  sessionsFor(uri: string): object[];
  /** Forgets a holder that ended, unsubscribing upstream where it was the last one. */
  drop(session: object): Promise<void>;
  /** Subscribes a restarted upstream to every URI someone still wants. */
  renew(): Promise<void>;
  /** How many URIs someone wants now (a subscribe still awaiting the upstream counts). */
  held(): number;
}

/** One URI's holders, and the upstream's answer to its `resources/subscribe`. */
interface Wanted {
  readonly holders: Set<object>;
  readonly subscribed: Promise<void>;
}

/** Creates the subscription table for `upstream`. */
export function createSubscriptions(upstream: Pick<Upstream, 'request'>): Subscriptions {
  const byUri = new Map<string, Wanted>();
  const send = async (method: 'resources/subscribe' | 'resources/unsubscribe', uri: string) => {
    await upstream.request({ method, params: { uri } });
  };

  const unsubscribe = async (session: object, uri: string) => {
    const wanted = byUri.get(uri);
    if (!wanted?.holders.delete(session) || wanted.holders.size > 0) return;
    byUri.delete(uri);
    // After its subscribe, so that the upstream never gets the two the other way round; a
    // subscribe that failed left nothing to undo.
    if (
      await wanted.subscribed.then(
        () => true,
        () => false,
      )
    )
      await send('resources/unsubscribe', uri);
  };

  return {
    async subscribe(session, uri) {
      const found = byUri.get(uri);
      // Entered before the upstream answers: a second holder meanwhile joins this entry (it
      // must not send a second subscribe, nor be forgotten when the first one's answer comes).
      const wanted = found ?? {
        holders: new Set<object>(),
        subscribed: send('resources/subscribe', uri),
      };
      if (!found) byUri.set(uri, wanted);
      wanted.holders.add(session);
      try {
        await wanted.subscribed;
      } catch (error) {
        // Refused upstream: no holder has it, and the next subscribe asks again.
        if (byUri.get(uri) === wanted) byUri.delete(uri);
        throw error;
      }
    },
    unsubscribe,
    sessionsFor: (uri) => [...(byUri.get(uri)?.holders ?? [])],
    async drop(session) {
      for (const uri of [...byUri.keys()]) await unsubscribe(session, uri).catch(() => {});
    },
    async renew() {
      for (const uri of byUri.keys()) await send('resources/subscribe', uri).catch(() => {});
    },
    held: () => byUri.size,
  };
}
