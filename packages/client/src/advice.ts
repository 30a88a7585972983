/**
 * What `@s2sp/client` alone tells a model: the advice sentences that end its error messages (the rest of
 * the catalogue, shared by several packages, is `@s2sp/core/advice`). A throw site states its facts
 * and ends with one of these entries; every entry ends with a sentence the model can act on (its
 * `advice.test.ts` checks it, with core's checks).
 *
 * @module
 */

/** The advice of a sync-mode (`ddi://`) handle that is unknown or used. */
export const callResourceToolAgainSync =
  'Call the resource tool again with mode="sync" and pass its new resource_url.';

/** For a `ddi://` handle that reached a tool whose server is not an S2SP consumer. */
export const passHandleToConsumer =
  'Pass the handle, which is still valid, to a consumer tool (one that takes resource_url and abstract_data) on another server.';

/** For a tool whose server is not connected on the agent's side. */
export const callAgainOnceConnected = 'Call the tool again once its server is connected.';
