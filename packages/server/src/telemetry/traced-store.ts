/**
 * Spans around a body store's `put` and `take`, so that a trace shows where a table was cached
 * and where it was redeemed, whichever store (memory, Redis, your own) holds it.
 *
 * @module
 */

import type { BodyStore } from '@s2sp/core/store';
import { inSpan } from './spans.js';

const traced = new WeakSet<BodyStore>();

/**
 * The store with `s2sp.store.put` and `s2sp.store.take` spans around those two calls; every
 * other member (including ones added later) is the store's own. Without OpenTelemetry each call
 * goes straight through after one check.
 *
 * @param store - any BodyStore; a store this function returned comes back as it is
 */
export function traceStore(store: BodyStore): BodyStore {
  if (traced.has(store)) return store;
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'put')
        return (
          key: string,
          table: Parameters<BodyStore['put']>[1],
          options: Parameters<BodyStore['put']>[2],
        ) =>
          inSpan('s2sp.store.put', { attributes: { 's2sp.rows': table.rows.length } }, () =>
            target.put(key, table, options),
          );
      if (property === 'take')
        // Every argument goes through: the third one makes a take repeatable (PROTOCOL §7.10).
        return (...[key, rowIds, options]: Parameters<BodyStore['take']>) =>
          inSpan(
            's2sp.store.take',
            rowIds ? { attributes: { 's2sp.requested_rows': rowIds.length } } : {},
            async (span) => {
              const taken = await target.take(key, rowIds, options);
              span?.setAttribute('s2sp.found', taken !== undefined);
              if (taken) span?.setAttribute('s2sp.rows', taken.ends.length);
              return taken;
            },
          );
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  traced.add(wrapped);
  return wrapped;
}
