import { S2SPError } from '@s2sp/core';
import { ifItPersists, retryShortly, waitForExpiry } from '@s2sp/core/advice';
import { retryOrUseSync, retryRedemption } from './advice.js';
/**
 * How Redis failures become `S2SPError`s. Messages are fixed sentences: they may travel over the
 * wire (a 503 body, a tool error an LLM reads), so they never carry a Redis address, a raw driver
 * message or a key. The original error stays in `cause` for the operator's logs.
 *
 * @module
 */

/** Which store operation failed; it decides the advice in the message. */
export type StoreOperation = 'put' | 'take' | 'stats' | 'check';

/** Thrown by {@link withTimeout} when Redis did not answer in time. */
export class RedisTimeoutError extends Error {
  /** @param ms - the time limit that ran out */
  constructor(readonly ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisTimeoutError';
  }
}

/** Thrown when the take script refused to run because its deadline had passed (see lua-scripts). */
export class RedisLateError extends Error {
  constructor() {
    super('Redis ran the command after the store had given up on it; nothing was changed');
    this.name = 'RedisLateError';
  }
}

// Error replies that mean "Redis is there but cannot serve right now": retrying later works.
const TRANSIENT_REPLIES = [
  'LOADING',
  'BUSY',
  'CLUSTERDOWN',
  'TRYAGAIN',
  'MASTERDOWN',
  'READONLY',
  'NOREPLICAS',
  'MOVED',
  'ASK',
];

// Both drivers have an error class for replies that Redis sent as errors (node-redis:
// `SimpleError`/`BlobError`, subclasses of `ErrorReply`; ioredis: `ReplyError`). Anything else
// (refused connection, closed client, offline queue disabled, socket timeout, cluster without
// reachable nodes) is a transport failure.
const REPLY_ERROR_NAMES = new Set(['ErrorReply', 'SimpleError', 'BlobError', 'ReplyError']);

function isReplyError(error: Error): boolean {
  return REPLY_ERROR_NAMES.has(error.name) || REPLY_ERROR_NAMES.has(error.constructor.name);
}

function firstWord(message: string): string {
  return message.split(' ', 1)[0] ?? '';
}

/** True when Redis refused a write because `maxmemory` is reached (policy `noeviction`). */
export function isOutOfMemoryError(error: unknown): boolean {
  return error instanceof Error && firstWord(error.message) === 'OOM';
}

/** True when Redis answered that the script is not in its script cache (load it with EVAL). */
export function isNoScriptError(error: unknown): boolean {
  return error instanceof Error && firstWord(error.message) === 'NOSCRIPT';
}

function reason(error: unknown): string {
  if (error instanceof RedisTimeoutError) return `Redis did not answer within ${error.ms} ms`;
  if (error instanceof RedisLateError) return 'Redis answered too late';
  if (error instanceof Error && isReplyError(error)) {
    const word = firstWord(error.message);
    if (word === 'LOADING') return 'Redis is loading its data after a restart';
    if (word === 'BUSY') return 'Redis is busy running a long script';
    if (word === 'READONLY' || word === 'MASTERDOWN')
      return 'the Redis primary is changing (failover)';
    if (word === 'NOREPLICAS') return 'Redis cannot reach enough replicas to accept writes';
    return 'the Redis Cluster is reconfiguring';
  }
  return 'the connection to Redis is down';
}

function advice(operation: StoreOperation): string {
  switch (operation) {
    case 'put':
      return `${retryOrUseSync} ${ifItPersists('Redis')}`;
    case 'take':
      // No promise that the token survived: if Redis ran the take but its reply was lost, it did
      // not, and a Redis restarted without persistence has lost every entry. A retry then gets
      // 404, which the 404's own advice covers.
      return `${retryRedemption} ${ifItPersists('Redis')}`;
    default:
      return `${retryShortly} ${ifItPersists('Redis')}`;
  }
}

/** The `store_full` error for a Redis that reached `maxmemory` (policy `noeviction`). */
export function outOfMemoryError(cause?: unknown): S2SPError {
  return new S2SPError(
    'store_full',
    `The S2SP cache (Redis) is out of memory, so this result cannot be cached. ${waitForExpiry('Redis maxmemory')}`,
    cause === undefined ? {} : { cause },
  );
}

// What the engine itself throws (a wrong argument, a bug in the store or its caller): never an
// outage, so never `unavailable`, whose advice to retry could only fail the same way again.
const PROGRAM_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError];

/**
 * Maps anything a Redis call threw to an `S2SPError`:
 * - errors the engine throws (`TypeError`, `RangeError`, …: a bug, not Redis) → `internal`;
 * - `OOM` replies → `store_full`;
 * - transport failures, timeouts and transient replies (`LOADING`, `CLUSTERDOWN`, …) → `unavailable`;
 * - other error replies (`NOPERM`, an unknown command, a script error) → `internal`: these are
 *   deployment mistakes, not outages, and their message is kept off the wire.
 *
 * @param error - what the driver threw
 * @param operation - the store operation, for the advice in the message
 */
export function toStoreError(error: unknown, operation: StoreOperation): S2SPError {
  if (S2SPError.isInstance(error)) return error;
  if (PROGRAM_ERRORS.some((type) => error instanceof type)) {
    return new S2SPError(
      'internal',
      `The S2SP cache (Redis store) failed with a ${(error as Error).name}: a bug in the code that called the store or in the store itself, not a Redis outage, so a retry fails the same way. The error's cause is the original ${(error as Error).name}.`,
      { cause: error },
    );
  }
  if (isOutOfMemoryError(error)) return outOfMemoryError(error);
  if (
    error instanceof Error &&
    isReplyError(error) &&
    !TRANSIENT_REPLIES.includes(firstWord(error.message))
  ) {
    return new S2SPError(
      'internal',
      `Redis refused a command of the S2SP cache (${firstWord(error.message)}). The operator must check the Redis user's permissions (EVALSHA, EVAL, HMGET, UNLINK, SCAN, INFO, TIME, ZADD) and the Redis version (5 or newer).`,
      { cause: error },
    );
  }
  return new S2SPError(
    'unavailable',
    `The S2SP cache is unavailable: ${reason(error)}. ${advice(operation)}`,
    { cause: error },
  );
}

/**
 * Races `promise` against a timer. The driver's promise is left to settle on its own (its late
 * result or rejection is swallowed): whether the command still runs in Redis is handled by the
 * scripts themselves (see the take deadline), not here.
 *
 * @param promise - the pending Redis call
 * @param ms - the time left
 * @param limitMs - the whole time limit, for the error message (when part of it was spent on
 *   earlier steps of the same operation). Default `ms`.
 * @throws RedisTimeoutError when the time runs out first
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, limitMs = ms): Promise<T> {
  // One promise and one timer per command (not a race of two promises and a `finally`): every
  // command of a take passes through here.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new RedisTimeoutError(limitMs)), Math.max(1, ms));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
