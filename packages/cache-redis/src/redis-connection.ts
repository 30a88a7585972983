import { S2SPError } from '@s2sp/core';
/**
 * One small interface over the four clients the store accepts: a node-redis client
 * (`createClient`), a node-redis cluster (`createCluster`), an ioredis `Redis` and an ioredis
 * `Cluster`. They are recognised by shape, so `ioredis` is never imported: it stays an optional
 * peer dependency.
 *
 * @module
 */

/** A command argument: text, or bytes sent as they are. */
export type RedisArgument = string | Buffer;

/** The node-redis command options the store sets. */
export interface NodeRedisCommandOptions {
  timeout?: number;
  /** node-redis's RESP type mapping; the store asks for bulk strings as `Buffer`s. */
  typeMapping?: Record<number, unknown>;
}

/** A node-redis client from `createClient()` (the parts the store uses). */
export interface NodeRedisClientLike {
  sendCommand(args: RedisArgument[], options?: NodeRedisCommandOptions): Promise<unknown>;
  connect(): Promise<unknown>;
  readonly isOpen: boolean;
  readonly isReady: boolean;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** A node-redis cluster from `createCluster()` (the parts the store uses). */
export interface NodeRedisClusterLike {
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: RedisArgument[],
    options?: NodeRedisCommandOptions,
  ): Promise<unknown>;
  readonly masters: readonly unknown[];
  nodeClient(node: never): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** An ioredis `Redis` or `Cluster` (the parts the store uses). */
export interface IORedisLike {
  call(command: string, args: (string | Buffer | number)[]): Promise<unknown>;
  /** Like `call`, with bulk-string replies as `Buffer`s. */
  callBuffer(command: string, args: (string | Buffer | number)[]): Promise<unknown>;
  readonly status: string;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** An ioredis `Cluster`: an {@link IORedisLike} that lists its nodes. */
export interface IORedisClusterLike extends IORedisLike {
  readonly isCluster: boolean;
  nodes(role?: 'master' | 'slave' | 'all'): IORedisLike[];
}

/**
 * Any client {@link createRedisBodyStore} accepts: node-redis `createClient()` or
 * `createCluster()` (connected by you), or an ioredis `Redis` or `Cluster`.
 */
export type RedisClientLike =
  | NodeRedisClientLike
  | NodeRedisClusterLike
  | IORedisLike
  | IORedisClusterLike;

/** Which kind of client a {@link RedisConnection} wraps. */
export type RedisClientKind = 'node-redis' | 'node-redis-cluster' | 'ioredis' | 'ioredis-cluster';

/** Sends one command to one Redis node. */
export type NodeSender = (args: RedisArgument[]) => Promise<unknown>;

/** Options of {@link RedisConnection.send}. */
export interface SendOptions {
  /**
   * Answer bulk strings as `Buffer`s (binary-safe, no UTF-8 decoding) instead of strings.
   * Row data is read this way: it goes to the HTTP response as the bytes Redis holds.
   */
  readonly buffers?: boolean;
  /**
   * The command is harmless if it reaches Redis after the store gave up on it (a take carries
   * its own deadline; reads and expiries change nothing that matters), so node-redis need not arm
   * a timer to drop it from its queue: an `AbortSignal.timeout` and its listener per command were
   * ~6 µs of a take's CPU. The store's own timeout still bounds the wait.
   */
  readonly lateIsHarmless?: boolean;
}

/** Connection events, for logging outages and recoveries. */
export interface ConnectionWatcher {
  error(error: unknown): void;
  ready(): void;
}

/** What the store needs from a client, whatever its kind. */
export interface RedisConnection {
  readonly kind: RedisClientKind;
  /**
   * Sends a command. In a cluster it goes to the node that serves `routingKey` (any node without
   * one). Throws at once, without sending, when the client knows it is disconnected.
   */
  send(args: RedisArgument[], routingKey?: string, options?: SendOptions): Promise<unknown>;
  /** One sender per master (one in all outside a cluster), for SCAN and INFO. */
  masters(): Promise<NodeSender[]>;
  /** Subscribes to errors and recoveries; returns the unsubscribe function. */
  watch(watcher: ConnectionWatcher): () => void;
}

type Listener = (...args: unknown[]) => void;

function has(value: object, name: string, type: string): boolean {
  return typeof (value as Record<string, unknown>)[name] === type;
}

/**
 * Recognises a client by shape.
 *
 * @returns the kind, or `undefined` when it is none of the four
 */
export function detectClientKind(client: unknown): RedisClientKind | undefined {
  if (typeof client !== 'object' || client === null) return undefined;
  // ioredis first: its clients also have a (different) sendCommand method.
  if (has(client, 'call', 'function') && has(client, 'status', 'string')) {
    return (client as { isCluster?: unknown }).isCluster === true &&
      has(client, 'nodes', 'function')
      ? 'ioredis-cluster'
      : 'ioredis';
  }
  if (has(client, 'sendCommand', 'function') && has(client, 'on', 'function')) {
    // node-redis Sentinel's sendCommand takes (isReadonly, args): not supported, not mistaken.
    if (has(client, 'getSentinelNode', 'function')) return undefined;
    if (has(client, 'nodeClient', 'function') && 'masters' in client) return 'node-redis-cluster';
    if (has(client, 'connect', 'function') && 'isReady' in client) return 'node-redis';
  }
  return undefined;
}

/**
 * The key prefix a client adds on its own (node-redis 6 and ioredis `keyPrefix`), if any. The
 * store cannot work under one: SCAN patterns and replies are not prefixed the way keys are.
 */
export function clientKeyPrefix(client: object): string | undefined {
  const options = (client as { options?: { keyPrefix?: unknown } }).options;
  const prefix = options?.keyPrefix;
  if (typeof prefix === 'string' && prefix !== '') return prefix;
  if (prefix instanceof Uint8Array && prefix.length > 0) return Buffer.from(prefix).toString();
  return undefined;
}

// ioredis states in which a command cannot be sent now. "wait" (lazyConnect) and "connecting"
// are left alone: the first command of a fresh client must be allowed to open the connection.
const IOREDIS_DOWN = new Set(['reconnecting', 'close', 'end']);

function offline(): Error {
  const error = new Error('The Redis client is not connected');
  error.name = 'ClientOfflineError';
  return error;
}

function subscribe(
  emitter: { on(event: string, l: Listener): unknown; off(event: string, l: Listener): unknown },
  errorEvents: readonly string[],
  readyEvents: readonly string[],
  watcher: ConnectionWatcher,
): () => void {
  const onError: Listener = (error) => watcher.error(error);
  const onReady: Listener = () => watcher.ready();
  for (const event of errorEvents) emitter.on(event, onError);
  for (const event of readyEvents) emitter.on(event, onReady);
  return () => {
    for (const event of errorEvents) emitter.off(event, onError);
    for (const event of readyEvents) emitter.off(event, onReady);
  };
}

/**
 * Wraps a client in a {@link RedisConnection}.
 *
 * @param client - a client of a {@link RedisClientKind}
 * @param commandTimeoutMs - passed to node-redis so a command still queued when the store gives
 *   up is dropped instead of being sent later
 * @throws S2SPError `invalid_config` when the client is of no known kind
 */
export function wrapClient(client: RedisClientLike, commandTimeoutMs: number): RedisConnection {
  const kind = detectClientKind(client);
  const options = { timeout: commandTimeoutMs };
  // 36 is RESP's bulk-string type ('$'): the same number in every node-redis version.
  const typeMapping = { 36: Buffer };
  const bufferOptions = { timeout: commandTimeoutMs, typeMapping };
  // `timeout: undefined` spelled out: node-redis merges a command's options over the client's
  // `commandOptions`, so a client created with a default timeout (the store's own is) would arm
  // its timer anyway.
  const untimedOptions = { timeout: undefined };
  const untimedBufferOptions = { timeout: undefined, typeMapping };
  const optionsFor = (how: SendOptions | undefined): NodeRedisCommandOptions => {
    if (!how?.lateIsHarmless) return how?.buffers ? bufferOptions : options;
    return how.buffers ? untimedBufferOptions : untimedOptions;
  };
  switch (kind) {
    case 'node-redis': {
      const c = client as NodeRedisClientLike;
      const send = (args: RedisArgument[], _key?: string, how?: SendOptions) =>
        // With an offline queue, node-redis would hold the command until it reconnects.
        c.isOpen && !c.isReady ? Promise.reject(offline()) : c.sendCommand(args, optionsFor(how));
      return {
        kind,
        send,
        masters: async () => [(args) => send(args)],
        watch: (watcher) => subscribe(c, ['error'], ['ready'], watcher),
      };
    }
    case 'node-redis-cluster': {
      const c = client as NodeRedisClusterLike;
      return {
        kind,
        send: (args, routingKey, how) => c.sendCommand(routingKey, false, args, optionsFor(how)),
        masters: async () => {
          const clients = await Promise.all(c.masters.map((m) => c.nodeClient(m as never)));
          return clients.map((node) => {
            const n = node as NodeRedisClientLike;
            return (args: RedisArgument[]) => n.sendCommand(args, options);
          });
        },
        watch: (watcher) => subscribe(c, ['error', 'node-error'], ['node-ready'], watcher),
      };
    }
    case 'ioredis':
    case 'ioredis-cluster': {
      const c = client as IORedisLike;
      const sender =
        (node: IORedisLike) => (args: RedisArgument[], _key?: string, how?: SendOptions) =>
          IOREDIS_DOWN.has(node.status)
            ? Promise.reject(offline())
            : how?.buffers
              ? node.callBuffer(String(args[0]), args.slice(1))
              : node.call(String(args[0]), args.slice(1));
      return {
        kind,
        send: sender(c),
        masters: async () =>
          kind === 'ioredis-cluster'
            ? (c as IORedisClusterLike).nodes('master').map((node) => {
                const send = sender(node);
                return (args: RedisArgument[]) => send(args);
              })
            : [(args: RedisArgument[]) => sender(c)(args)],
        watch: (watcher) =>
          subscribe(
            c,
            kind === 'ioredis-cluster' ? ['error', 'node error'] : ['error'],
            ['ready'],
            watcher,
          ),
      };
    }
    default:
      throw new S2SPError(
        'invalid_config',
        'client must be a node-redis client (createClient or createCluster from "redis") or an ioredis Redis or Cluster (for Sentinel, use ioredis with sentinels).',
      );
  }
}
