/**
 * `@s2sp/client/node`: kept for compatibility; the public-destinations-only fetch now lives in
 * `@s2sp/core/node`, next to `fetchBody`, so servers use it without depending on this package.
 *
 * @module
 */

export {
  /** @deprecated Import from `@s2sp/core/node`. Will be removed in 0.3. */
  createPublicOnlyFetch,
  /** @deprecated Import from `@s2sp/core/node`. Will be removed in 0.3. */
  isPublicAddress,
} from '@s2sp/core/node';
