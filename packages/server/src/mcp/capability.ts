import { PROTOCOL, type S2SPCapability } from '@s2sp/core';

/**
 * The capability object for a server with these S2SP tool kinds.
 *
 * @param roles - `resource` and/or `consumer`
 */
export function s2spCapability(roles: readonly ('resource' | 'consumer')[]): S2SPCapability {
  return {
    version: PROTOCOL.version,
    dataPlanePath: PROTOCOL.dataPathPrefix,
    roles: [...new Set(roles)].sort(),
  };
}
