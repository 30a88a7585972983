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

/** A {@link ConcurrencyLimit} for each client, made when the client first calls. */
export interface ClientConcurrencyLimit {
  /**
   * Runs `task` in `client`'s own slots.
   * @throws S2SPError `unavailable` at once when that client's slots and queue places are taken
   */
  run<T>(client: string, task: () => Promise<T> | T): Promise<T>;
  /** Tasks running and waiting now for `client`. */
  active(client: string): number;
}

/**
 * Bounds the work of each client separately (keyed by `clientKey`): one client's many concurrent
 * calls are refused for that client only, while the others keep their own slots. A client's
 * limit is forgotten once it has nothing running or waiting.
 *
 * @param options - slots and queue places per client, and a label for the error
 * @throws S2SPError `invalid_config` for a non-positive `concurrency` or negative `queue`
 * @example
 * ```ts
 * const perClient = createClientConcurrencyLimit({ concurrency: 8, what: 'tool calls of this client' });
 * await perClient.run(clientKey(extra), () => upstream.call(request));
 * ```
 */
export function createClientConcurrencyLimit(
  options: ConcurrencyLimitOptions,
): ClientConcurrencyLimit {
  parseOptions(ConcurrencyLimitOptionsSchema, options, {
    factory: 'createClientConcurrencyLimit',
  });
  const limits = new Map<string, ConcurrencyLimit>();
  return {
    async run(client, task) {
      let limit = limits.get(client);
      if (!limit) {
        limit = createConcurrencyLimit(options);
        limits.set(client, limit);
      }
      try {
        return await limit.run(task);
      } finally {
        if (limit.active === 0 && limit.waiting === 0 && limits.get(client) === limit)
          limits.delete(client);
      }
    },
    active: (client) => {
      const limit = limits.get(client);
      return limit ? limit.active + limit.waiting : 0;
    },
  };
}
