/**
 * The node-redis client the store creates for a `url`, configured to fail fast and heal by itself.
 *
 * @module
 */

import { createClient } from 'redis';
import type { NodeRedisClientLike } from './redis-connection.js';

/** A client the store owns: it connects on creation and is closed with the store. */
export interface OwnedClient {
  readonly client: NodeRedisClientLike;
  /**
   * Settles after the first connection attempt, successful or not. Operations wait for it, so
   * the first call after start-up does not fail merely because the socket is still opening;
   * after that they fail fast while Redis is down.
   */
  readonly started: Promise<void>;
  close(): Promise<void>;
}

/** Options for {@link createOwnedClient}. */
export interface OwnedClientOptions {
  readonly url: string;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
}

/**
 * Exponential back-off from 50 ms to 1 s, with up to 100 ms of jitter so replicas do not
 * reconnect in step. The cap keeps a Redis that comes back noticed within about a second, so
 * service resumes within 2 s of a restart whenever it happens; one connection attempt a second
 * per replica costs a down Redis nothing.
 */
export function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** Math.min(retries, 10), 1000) + Math.floor(Math.random() * 100);
}

/**
 * Creates and connects a node-redis client for `url`:
 * - `disableOfflineQueue`: while disconnected, commands fail at once instead of waiting (and
 *   running much later);
 * - a connect timeout, and a per-command timeout for commands not yet written;
 * - a reconnect strategy that never gives up, so service resumes by itself when Redis is back;
 * - a PING every 5 s and a socket timeout, so a connection to a frozen or vanished server is
 *   noticed and replaced even when no request is in flight.
 *
 * Errors are reported through the 'error' event, which the store always listens to: a Redis
 * outage never crashes the process.
 */
export function createOwnedClient(options: OwnedClientOptions): OwnedClient {
  const client = createClient({
    url: options.url,
    disableOfflineQueue: true,
    pingInterval: 5000,
    commandOptions: { timeout: options.commandTimeoutMs },
    socket: {
      connectTimeout: options.connectTimeoutMs,
      socketTimeout: Math.max(15_000, options.commandTimeoutMs * 3),
      reconnectStrategy: (retries: number) => reconnectDelay(retries),
    },
  });
  let settle: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const onFirst = () => {
    client.off('ready', onFirst);
    client.off('error', onFirst);
    settle();
  };
  client.on('ready', onFirst);
  client.on('error', onFirst);
  // Never removed: node-redis may still report a socket error while closing, after the store
  // has stopped listening, and an 'error' event without a listener would crash the process.
  client.on('error', () => {});
  // connect() resolves at the first 'ready' and rejects only if the client is closed first.
  client.connect().catch(() => settle());
  return {
    client,
    started,
    async close() {
      settle();
      // close() lets pending commands finish; with Redis down there is nothing to wait for.
      if (client.isReady) await client.close().catch(() => client.destroy());
      else if (client.isOpen) client.destroy();
    },
  };
}
