/**
 * An upstream session per client. A proxy shared by several clients must not let one client's
 * upstream state (a database connection, an open transaction, a counter) or the upstream's
 * requests to a client (sampling, elicitation, roots) reach another, and the only way to know
 * whose a server's message is, is to give each client a session of its own: its own process for
 * a stdio upstream, its own MCP session for an HTTP one. What the upstream sends on a client's
 * session then belongs to that client by construction, and nothing has to be guessed.
 *
 * The pool opens a client's session on its first request (the start-up is paid once per client),
 * keeps at most `maxSessions` of them (a client beyond it is refused with `unavailable`, naming
 * the limit), and closes a session when its owner ends (a 2025-era MCP session closing) or, for
 * an owner without a session of its own (a 2026-07-28 client, known by its credential or
 * address), after it has been idle for `idleMs` (and is no longer in use without a request, see
 * `inUse`).
 *
 * @module
 */

import type { Logger } from '@s2sp/core';
import { S2SPError } from '@s2sp/core';
import { waitForUpstreamSession } from '../advice.js';
import type { Upstream } from './upstream.js';

/** Options for {@link createUpstreamPool}. */
export interface UpstreamPoolOptions<Key> {
  /** A new upstream session for `key` (not yet started). */
  readonly open: (key: Key) => Upstream;
  /** The most upstream sessions open at once. */
  readonly maxSessions: number;
  /** An idle-closable session with no request for this long is closed, in ms. */
  readonly idleMs: number;
  /** The pool's own word to its operator when a session closes or the pool is full. */
  readonly logger: Logger;
  /** Called after a session of the pool has closed (idle, or its owner ended). */
  readonly onClosed?: (key: Key) => void;
  /**
   * Whether an idle-closable session is still in use without a request: a 2026-07-28 client's
   * open listen stream that holds resources subscribed on it would hear nothing once it closed.
   * Default: never.
   */
  readonly inUse?: (key: Key) => boolean;
}

/** How a key's session is kept. */
export interface LeaseOptions {
  /**
   * Closed after `idleMs` without a request (an owner with no session of its own), rather than
   * only by {@link UpstreamPool.release}.
   */
  readonly idleClose: boolean;
}

/** The upstream sessions of the proxy's clients. */
export interface UpstreamPool<Key> {
  /**
   * The upstream of `key`, as an {@link Upstream}: its first request opens and starts the session
   * (and waits for it), every later one reuses it. Requests fail with `unavailable` while the pool
   * is full.
   */
  lease(key: Key, options: LeaseOptions): Upstream;
  /** Closes the session of `key`, if one is open. */
  release(key: Key): Promise<void>;
  /** Open sessions now. */
  size(): number;
  /** Closes every session. */
  close(): Promise<void>;
}

interface Entry {
  readonly upstream: Upstream;
  readonly started: Promise<void>;
  readonly idleClose: boolean;
  busy: number;
  lastUsed: number;
}

/**
 * Creates the pool.
 *
 * @param options - how a session is opened, the limit and the idle time
 * @param shared - the upstream every lease's capabilities and server info come from (the one
 *   the proxy connected at start)
 */
export function createUpstreamPool<Key>(
  options: UpstreamPoolOptions<Key>,
  shared: Pick<Upstream, 'capabilities' | 'era' | 'serverInfo' | 'instructions'>,
): UpstreamPool<Key> {
  const entries = new Map<Key, Entry>();
  let closed = false;

  const drop = async (key: Key, entry: Entry) => {
    if (entries.get(key) !== entry) return;
    entries.delete(key);
    await entry.upstream.close().catch(() => {});
    options.onClosed?.(key);
  };

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [key, entry] of entries) {
        if (
          entry.idleClose &&
          entry.busy === 0 &&
          now - entry.lastUsed > options.idleMs &&
          !options.inUse?.(key)
        ) {
          options.logger.debug('upstream session idle: closed', { idleMs: options.idleMs });
          void drop(key, entry);
        }
      }
    },
    Math.max(1_000, Math.min(options.idleMs, 60_000)),
  );
  sweep.unref();

  const acquire = (key: Key, lease: LeaseOptions): Entry => {
    const found = entries.get(key);
    if (found) return found;
    if (closed) throw new S2SPError('unavailable', 'The proxy is shutting down.');
    if (entries.size >= options.maxSessions) {
      options.logger.warn('upstream sessions: full; a new client was refused', {
        maxUpstreamSessions: options.maxSessions,
      });
      throw new S2SPError(
        'unavailable',
        `All ${options.maxSessions} upstream sessions (one per client) are taken. ${waitForUpstreamSession}`,
        { data: { limit: options.maxSessions } },
      );
    }
    const upstream = options.open(key);
    const entry: Entry = {
      upstream,
      started: upstream.start(),
      idleClose: lease.idleClose,
      busy: 0,
      lastUsed: Date.now(),
    };
    entries.set(key, entry);
    // A session that could not start is forgotten, so that the client's next request tries again.
    entry.started.catch(() => void drop(key, entry));
    return entry;
  };

  /** Runs `use` on the started session of `key`, counted as busy meanwhile. */
  const using = async <T>(
    key: Key,
    lease: LeaseOptions,
    use: (upstream: Upstream) => Promise<T>,
  ): Promise<T> => {
    const entry = acquire(key, lease);
    entry.busy++;
    try {
      await entry.started;
      return await use(entry.upstream);
    } finally {
      entry.busy--;
      entry.lastUsed = Date.now();
    }
  };

  return {
    lease(key, lease) {
      return {
        start: () => using(key, lease, async () => {}),
        request: (request, forward) =>
          using(key, lease, (upstream) => upstream.request(request, forward)),
        capabilities: () => shared.capabilities(),
        era: () => shared.era(),
        serverInfo: () => shared.serverInfo(),
        instructions: () => shared.instructions(),
        restarts: () => entries.get(key)?.upstream.restarts() ?? 0,
        // A notification (roots changed) concerns a session that exists: none is opened for it.
        notify: async (notification) => {
          const entry = entries.get(key);
          if (entry) await entry.started.then(() => entry.upstream.notify(notification));
        },
        close: async () => {
          const entry = entries.get(key);
          if (entry) await drop(key, entry);
        },
      };
    },
    async release(key) {
      const entry = entries.get(key);
      if (entry) await drop(key, entry);
    },
    size: () => entries.size,
    async close() {
      closed = true;
      clearInterval(sweep);
      await Promise.all([...entries].map(([key, entry]) => drop(key, entry)));
    },
  };
}
