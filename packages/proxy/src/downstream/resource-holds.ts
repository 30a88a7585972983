/**
 * Who wants which resource on each owner's upstream session: a 2025-era downstream session's
 * `resources/subscribe` and a 2026-07-28 client's `subscriptions/listen` streams alike, so that a
 * URI stays subscribed until the last of them lets it go (the counting is `subscriptions.ts`'s).
 * One table per upstream session: each owner's own, or the one every owner shares when the
 * upstream is shared. An owner's table goes with its session.
 *
 * @module
 */
import type { Logger } from '@s2sp/core';
import type { Upstream } from '../upstream/upstream.js';
import { createSubscriptions, type Subscriptions } from './subscriptions.js';

/** Options for {@link createResourceHolds}. */
export interface ResourceHoldsOptions<Owner> {
  /** The one table of a shared upstream session; absent, each owner's session has its own. */
  readonly shared?: Subscriptions;
  /** The upstream session of `owner`, on which its table subscribes. */
  readonly upstreamOf: (owner: Owner) => Pick<Upstream, 'request'>;
  /** Whether the upstream declares `resources.subscribe`. */
  readonly canSubscribe: () => boolean;
  readonly logger: Logger;
}

/** The resource holds of every owner's upstream session. */
export interface ResourceHolds<Owner> {
  /** The subscription table of `owner`'s upstream session (made on first use). */
  tableOf(owner: Owner): Subscriptions;
  /**
   * Subscribes `owner`'s upstream session to what one of its listen streams names, the stream
   * being the holder; resolves once subscribed, to what lets them go when the stream ends. A URI
   * the upstream refuses is logged and the stream opens all the same: its list changes and other
   * URIs do not depend on it.
   */
  hold(owner: Owner, uris: readonly string[]): Promise<() => Promise<void>>;
  /** Whether `owner`'s session holds any resource (an open listen stream keeps it in use). */
  inUse(owner: Owner): boolean;
  /** Subscribes `owner`'s restarted session again to every URI still wanted. */
  renew(owner: Owner): Promise<void>;
  /** Forgets `owner`'s table: its session closed. */
  forget(owner: Owner): void;
}

/**
 * Creates the resource holds of a proxy's upstream sessions.
 *
 * @param options - the shared table if any, each owner's session, and what the upstream declares
 */
export function createResourceHolds<Owner>(
  options: ResourceHoldsOptions<Owner>,
): ResourceHolds<Owner> {
  const { shared, logger } = options;
  const own = new Map<Owner, Subscriptions>();
  const tableOf = (owner: Owner): Subscriptions => {
    if (shared) return shared;
    let found = own.get(owner);
    if (!found) {
      found = createSubscriptions(options.upstreamOf(owner));
      own.set(owner, found);
    }
    return found;
  };
  return {
    tableOf,
    async hold(owner, uris) {
      // Without `resources.subscribe` upstream the proxy declares none, and SDK v2's entry
      // honours no resourceSubscriptions: there is nothing to hold.
      if (!options.canSubscribe()) return async () => {};
      const table = tableOf(owner);
      const stream = {};
      const outcomes = await Promise.allSettled(uris.map((uri) => table.subscribe(stream, uri)));
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      if (refused.length > 0) {
        logger.warn('upstream: a listen stream’s resources were not all subscribed', {
          refused: refused.length,
          of: uris.length,
          error: String((refused[0] as PromiseRejectedResult).reason).slice(0, 200),
        });
      }
      // An owner's table that holds nothing is forgotten, so that clients refused upstream (the
      // pool full) leave nothing behind.
      const forgetIfEmpty = () => {
        if (!shared && table.held() === 0 && own.get(owner) === table) own.delete(owner);
      };
      forgetIfEmpty();
      return async () => {
        // A table forgotten went with its session: letting go there would open a new one.
        if (!shared && own.get(owner) !== table) return;
        await table.drop(stream);
        forgetIfEmpty();
      };
    },
    inUse: (owner) => (own.get(owner)?.held() ?? 0) > 0,
    renew: async (owner) => {
      await own.get(owner)?.renew();
    },
    forget: (owner) => {
      own.delete(owner);
    },
  };
}
