import { S2SPError } from '@s2sp/core';
import { parseOptions, positiveInteger } from '@s2sp/core/options';
import { z } from 'zod';
import { retryOneAtATime } from '../advice.js';

/** Options for {@link createConcurrencyLimit}. */
export interface ConcurrencyLimitOptions {
  /** How many tasks may run at once. */
  readonly concurrency: number;
  /** How many more may wait for a slot; beyond that a task is refused at once. Default 0. */
  readonly queue?: number;
  /** What is limited, for the error (`data-plane fetches`, `chart renders`). */
  readonly what: string;
}

/** The rules of {@link ConcurrencyLimitOptions}, which consumer fetch limits reuse. */
export const ConcurrencyLimitOptionsSchema = z.object({
  concurrency: positiveInteger(),
  queue: positiveInteger({ min: 0 }).default(0),
  what: z.string().min(1),
} satisfies Record<keyof ConcurrencyLimitOptions, z.ZodType>);

/** A counting semaphore with a bounded queue. */
export interface ConcurrencyLimit {
  /**
   * Runs `task` when a slot is free.
   * @throws S2SPError `unavailable` at once when every slot and queue place is taken
   */
  run<T>(task: () => Promise<T> | T): Promise<T>;
  /** Tasks running and waiting now. */
  readonly active: number;
  readonly waiting: number;
}

/**
 * Bounds how much work one server does at once: `concurrency` tasks run, `queue` more wait, and
 * anything beyond is refused at once with `unavailable` — so one JSON-RPC batch or one busy agent
 * cannot take the process's memory or event loop (40 concurrent fetches took a
 * consumer to 2.76 GB; 100 renders blocked it for 31.6 s).
 *
 * @param options - slots, queue places and a label for the error
 * @throws S2SPError `invalid_config` for a non-positive `concurrency` or negative `queue`
 * @example
 * ```ts
 * const renders = createConcurrencyLimit({ concurrency: 2, queue: 8, what: 'chart renders' });
 * const png = await renders.run(() => render(spec));
 * ```
 */
export function createConcurrencyLimit(options: ConcurrencyLimitOptions): ConcurrencyLimit {
  const { concurrency, queue } = parseOptions(ConcurrencyLimitOptionsSchema, options, {
    factory: 'createConcurrencyLimit',
  });
  let active = 0;
  const waiters: (() => void)[] = [];

  const release = () => {
    const next = waiters.shift();
    if (next) next();
    else active--;
  };

  return {
    async run<T>(task: () => Promise<T> | T): Promise<T> {
      if (active >= concurrency) {
        if (waiters.length >= queue) {
          throw new S2SPError(
            'unavailable',
            `This server is busy: ${concurrency} ${options.what} are running and ${queue} are waiting (its limit). ${retryOneAtATime}`,
          );
        }
        // The slot is handed over by release(), so `active` stays counted.
        await new Promise<void>((resolve) => waiters.push(resolve));
      } else {
        active++;
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return waiters.length;
    },
  };
}

/** Options for {@link createClientConcurrencyLimit}. */
export interface ClientConcurrencyLimitOptions extends ConcurrencyLimitOptions {
  /**
   * Slots all clients share, beside each client's own: `concurrency` tasks of all clients run at
   * once and `queue` more wait in all. A freed slot goes to the clients in turn (round-robin), a
   * client's oldest task first, so one client's queued tasks never hold another's turn. When
   * every shared waiting place is taken, a client with fewer waiting tasks than the client with
   * the most takes that client's newest place (that task is refused `unavailable`): a full queue
   * is refused to the client that holds most of it, not to the one arriving. Default: none, each
   * client's slots are its own only.
   */
  readonly shared?: ConcurrencyLimitOptions;
}

const ClientConcurrencyLimitOptionsSchema = z.object({
  ...ConcurrencyLimitOptionsSchema.shape,
  shared: ConcurrencyLimitOptionsSchema.optional(),
} satisfies Record<keyof ClientConcurrencyLimitOptions, z.ZodType>);

/** A {@link ConcurrencyLimit} for each client, made when the client first calls. */
export interface ClientConcurrencyLimit {
  /**
   * Runs `task` in `client`'s own slots (and one of the shared slots, when there are some).
   * @param options - `signal`: aborting it while the task waits takes it out of the queue
   * @throws S2SPError `unavailable` at once when that client's slots and queue places are taken,
   *   or every shared waiting place is held by clients with no more than this one; later, when
   *   its waiting place goes to a client with fewer waiting tasks, or the signal aborts it
   */
  run<T>(
    client: string,
    task: () => Promise<T> | T,
    options?: { readonly signal?: AbortSignal },
  ): Promise<T>;
  /** Tasks running and waiting now for `client`. */
  active(client: string): number;
  /** Tasks of all clients running now. */
  readonly running: number;
  /** Tasks of all clients waiting now. */
  readonly waiting: number;
}

interface Waiter {
  readonly start: () => void;
  readonly refuse: (error: S2SPError) => void;
}

interface ClientLine {
  running: number;
  readonly waiting: Waiter[];
}

/**
 * Bounds the work of each client separately (keyed by `clientKey`): one client's many concurrent
 * calls are refused for that client only, while the others keep their own slots. With `shared`,
 * the process's slots are handed out fairly between the clients that wait (see
 * {@link ClientConcurrencyLimitOptions.shared}). A client is forgotten once it has nothing running
 * or waiting.
 *
 * @param options - slots and queue places per client, the shared ones, and a label for the error
 * @throws S2SPError `invalid_config` for a non-positive `concurrency` or negative `queue`
 * @example
 * ```ts
 * const queries = createClientConcurrencyLimit({
 *   concurrency: 1, queue: 2, what: 'queries of this client',
 *   shared: { concurrency: 2, queue: 32, what: 'queries' },
 * });
 * await queries.run(clientKey(extra), () => runQuery(sql), { signal: extra.signal });
 * ```
 */
export function createClientConcurrencyLimit(
  options: ClientConcurrencyLimitOptions,
): ClientConcurrencyLimit {
  const { concurrency, queue, shared } = parseOptions(
    ClientConcurrencyLimitOptionsSchema,
    options,
    { factory: 'createClientConcurrencyLimit' },
  );
  const sharedSlots = shared?.concurrency ?? Number.POSITIVE_INFINITY;
  const sharedQueue = shared?.queue ?? Number.POSITIVE_INFINITY;
  const lines = new Map<string, ClientLine>();
  /** Clients with a task waiting, in the order their turns come; each once. */
  const turns: string[] = [];
  let running = 0;
  let waiting = 0;

  const sharedBusy = () =>
    new S2SPError(
      'unavailable',
      `This server is busy: ${sharedSlots} ${shared?.what} are running and ${sharedQueue} are waiting (its limit). ${retryOneAtATime}`,
    );
  const forget = (client: string, line: ClientLine) => {
    if (line.running === 0 && line.waiting.length === 0 && lines.get(client) === line)
      lines.delete(client);
  };
  const leaveTurns = (client: string) => {
    const at = turns.indexOf(client);
    if (at >= 0) turns.splice(at, 1);
  };
  // Hands free shared slots to the waiting clients in turn, skipping a client whose own slots
  // are all taken (it keeps its place in the turns).
  const dispatch = () => {
    for (let at = 0; running < sharedSlots && at < turns.length; ) {
      const client = turns[at] as string;
      const line = lines.get(client);
      // (A client in the turns always has a task waiting; this keeps the loop safe if not.)
      if (!line || line.waiting.length === 0) {
        turns.splice(at, 1);
        continue;
      }
      if (line.running >= concurrency) {
        at++;
        continue;
      }
      turns.splice(at, 1);
      const next = line.waiting.shift() as Waiter;
      waiting--;
      if (line.waiting.length > 0) turns.push(client);
      next.start();
    }
  };
  // The newest waiting place of the client holding the most, when that is more than `than`.
  const takePlaceFrom = (than: number): Waiter | undefined => {
    let most: ClientLine | undefined;
    for (const line of lines.values())
      if (line.waiting.length > (most?.waiting.length ?? than)) most = line;
    if (!most) return undefined;
    waiting--;
    return most.waiting.pop();
  };

  return {
    async run(client, task, runOptions) {
      let line = lines.get(client);
      if (!line) {
        line = { running: 0, waiting: [] };
        lines.set(client, line);
      }
      const own = line;
      if (own.running + own.waiting.length >= concurrency + queue) {
        throw new S2SPError(
          'unavailable',
          `This server is busy: ${concurrency} ${options.what} are running and ${queue} are waiting (its limit). ${retryOneAtATime}`,
        );
      }
      if (own.running < concurrency && running < sharedSlots && own.waiting.length === 0) {
        own.running++;
        running++;
      } else {
        if (waiting >= sharedQueue) {
          // Only a client holding at least two places more than this one gives one up, so two
          // clients never take a place back and forth.
          const displaced = takePlaceFrom(own.waiting.length + 1);
          if (!displaced) {
            forget(client, own);
            throw sharedBusy();
          }
          displaced.refuse(sharedBusy());
        }
        const signal = runOptions?.signal;
        await new Promise<void>((resolve, reject) => {
          const onAbort = () => {
            const at = own.waiting.indexOf(waiter);
            if (at < 0) return;
            own.waiting.splice(at, 1);
            waiting--;
            if (own.waiting.length === 0) leaveTurns(client);
            forget(client, own);
            reject(
              new S2SPError(
                'unavailable',
                `The call was cancelled while it waited for a slot. ${retryOneAtATime}`,
              ),
            );
          };
          const waiter: Waiter = {
            start: () => {
              signal?.removeEventListener('abort', onAbort);
              own.running++;
              running++;
              resolve();
            },
            refuse: (error) => {
              signal?.removeEventListener('abort', onAbort);
              if (own.waiting.length === 0) leaveTurns(client);
              forget(client, own);
              reject(error);
            },
          };
          own.waiting.push(waiter);
          waiting++;
          if (!turns.includes(client)) turns.push(client);
          if (signal?.aborted) onAbort();
          else signal?.addEventListener('abort', onAbort, { once: true });
          // A slot may be free while this client's own slots were taken: nothing to wait for
          // then but the dispatch.
          dispatch();
        });
      }
      try {
        return await task();
      } finally {
        own.running--;
        running--;
        dispatch();
        forget(client, own);
      }
    },
    active: (client) => {
      const line = lines.get(client);
      return line ? line.running + line.waiting.length : 0;
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiting;
    },
  };
}
