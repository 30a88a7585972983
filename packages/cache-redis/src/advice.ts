/**
 * What `@s2sp/cache-redis` alone tells a model: the advice sentences that end its error messages (the rest of
 * the catalogue, shared by several packages, is `@s2sp/core/advice`). A throw site states its facts
 * and ends with one of these entries; every entry ends with a sentence the model can act on (its
 * `advice.test.ts` checks it, with core's checks).
 *
 * @module
 */

/** For a cache outage while a tool call stores its result: sync mode needs no cache. */
export const retryOrUseSync =
  'Retry the tool call in a few seconds, or call it with mode="sync", which needs no cache.';

/** For a cache outage while a resource_url is redeemed: the token may or may not survive. */
export const retryRedemption =
  'The resource_url may no longer work: the cache may have completed this redemption before the connection failed, or restarted without its data. Retry the same request in a few seconds; if it answers 404, call the resource tool again.';
