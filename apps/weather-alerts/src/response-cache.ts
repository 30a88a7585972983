/**
 * A small in-process cache of upstream responses with request coalescing. NWS asks clients to be
 * gentle, and an agent often repeats a call (or several agents ask the same question at once): a
 * burst of identical requests must become a single upstream request.
 *
 * @module
 */

/** Options for {@link createResponseCache}. */
export interface ResponseCacheOptions {
  /** How long a loaded value is served, in milliseconds. 0 disables caching (coalescing stays). */
  readonly ttlMs: number;
  /** Most values kept; the oldest is dropped first. */
  readonly maxEntries: number;
  /** The clock, in milliseconds. Default `Date.now`. */
  readonly now?: () => number;
}

/** A cache created by {@link createResponseCache}. */
export interface ResponseCache<TValue> {
  /**
   * The cached value for `key`, or the result of `load()`. Concurrent calls for a key that is being
   * loaded share that one load. A failed load is not cached: the next call tries again.
   */
  getOrLoad(key: string, load: () => Promise<TValue>): Promise<TValue>;
  /** Fresh entries currently held. */
  size(): number;
  /** Drops every entry (in-flight loads still complete for their callers). */
  clear(): void;
}

/**
 * Creates a bounded TTL cache that coalesces concurrent loads of the same key.
 *
 * @param options - TTL, bound and clock (checked by the NWS client's options schema)
 */
export function createResponseCache<TValue>(options: ResponseCacheOptions): ResponseCache<TValue> {
  const { ttlMs, maxEntries } = options;
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order, and an entry is re-inserted when reloaded, so the first
  // key is always the oldest: dropping it is FIFO eviction without a separate list.
  const entries = new Map<string, { value: TValue; expiresAt: number }>();
  const inFlight = new Map<string, Promise<TValue>>();

  const prune = () => {
    const time = now();
    for (const [key, entry] of entries) if (entry.expiresAt <= time) entries.delete(key);
  };

  const remember = (key: string, value: TValue) => {
    if (ttlMs === 0) return;
    prune();
    while (entries.size >= maxEntries) {
      const oldest = entries.keys().next().value as string;
      entries.delete(oldest);
    }
    entries.set(key, { value, expiresAt: now() + ttlMs });
  };

  return {
    getOrLoad(key, load) {
      const hit = entries.get(key);
      if (hit && hit.expiresAt > now()) return Promise.resolve(hit.value);
      if (hit) entries.delete(key);
      const pending = inFlight.get(key);
      if (pending) return pending;
      // `load` runs in a later microtask, after the promise is registered, so that even a load
      // that throws synchronously cannot leave a settled promise behind in `inFlight`.
      const promise = Promise.resolve()
        .then(load)
        .then((value) => {
          remember(key, value);
          return value;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, promise);
      return promise;
    },
    size() {
      prune();
      return entries.size;
    },
    clear() {
      entries.clear();
    },
  };
}
