/**
 * `@s2sp/client`: the agent side of S2SP.
 *
 * This file is the package's public API: adding an export here is an API change.
 *
 * @module
 */

export {
  DEFAULT_FETCH_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  type FetchBodyOptions,
  type FetchedBody,
  fetchBody,
} from './fetch-body.js';
