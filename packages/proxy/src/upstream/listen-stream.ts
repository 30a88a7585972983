/**
 * The `subscriptions/listen` stream of a 2026-07-28 upstream session. That revision has no
 * `resources/subscribe` and no unsolicited notifications: a server sends its list changes and
 * resource updates only on a listen stream, and only those its filter asks for. The session keeps
 * one stream, asking for the list changes the upstream declares and the resources its owner
 * subscribed to; what comes on it reaches the owner as a 2025 server's notifications do (each
 * client has its own session: see upstream-pool.ts).
 *
 * A stream's filter is fixed when it opens, so a change of subscriptions opens a stream with the
 * new filter and, once the upstream has acknowledged it, closes the old one: no update is lost
 * in between (one may come twice).
 *
 * @module
 */
import type { ServerCapabilities } from '../mcp-sdk.js';

/** What a listen stream asks for (SDK v2's `SubscriptionFilter`). */
export interface ListenFilter {
  readonly toolsListChanged?: boolean;
  readonly promptsListChanged?: boolean;
  readonly resourcesListChanged?: boolean;
  readonly resourceSubscriptions?: string[];
}

/** Options for {@link createListenStream}. */
export interface ListenStreamOptions {
  /** What the upstream declared: the list changes it can tell. */
  readonly declared: ServerCapabilities;
  /** Opens a stream (SDK v2's `Client.listen`); resolves once the upstream acknowledged it. */
  readonly listen: (filter: ListenFilter) => Promise<{ close(): Promise<void> }>;
}

/** The session's listen stream. */
export interface ListenStream {
  /** Opens the stream for the declared list changes, if the upstream declares any. */
  open(): Promise<void>;
  /**
   * Adds `uri` to the resources the stream asks for (`resources/subscribe`). Who wants it is
   * counted in front of the session (`downstream/subscriptions.ts`: a 2025 session, listen
   * streams of the client), which sends one subscribe per URI, however many want it.
   */
  subscribe(uri: string): Promise<void>;
  /** Removes `uri` (`resources/unsubscribe`: sent once the last that wanted it has let go). */
  unsubscribe(uri: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Creates the listen stream of one upstream session (call `open()`).
 *
 * @param options - what the upstream declared, and how a stream is opened
 */
export function createListenStream(options: ListenStreamOptions): ListenStream {
  const { declared } = options;
  const lists: ListenFilter = {
    ...(declared.tools?.listChanged && { toolsListChanged: true }),
    ...(declared.prompts?.listChanged && { promptsListChanged: true }),
    ...(declared.resources?.listChanged && { resourcesListChanged: true }),
  };
  const uris = new Set<string>();
  let current: { close(): Promise<void> } | undefined;
  let closed = false;
  // One change at a time: each opens a stream on the filter as it then is.
  let queue: Promise<unknown> = Promise.resolve();

  const reopen = () => {
    const next = queue.then(async () => {
      if (closed) return;
      const filter: ListenFilter = {
        ...lists,
        ...(uris.size > 0 && { resourceSubscriptions: [...uris] }),
      };
      const previous = current;
      current = Object.keys(filter).length === 0 ? undefined : await options.listen(filter);
      await previous?.close().catch(() => {});
    });
    queue = next.catch(() => {});
    return next;
  };

  return {
    open: reopen,
    async subscribe(uri) {
      if (uris.has(uri)) return;
      uris.add(uri);
      await reopen().catch((error: unknown) => {
        uris.delete(uri);
        throw error;
      });
    },
    async unsubscribe(uri) {
      if (!uris.delete(uri)) return;
      await reopen();
    },
    async close() {
      closed = true;
      await queue;
      await current?.close().catch(() => {});
      current = undefined;
    },
  };
}
