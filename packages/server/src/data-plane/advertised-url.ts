import { S2SPError } from '@s2sp/core';

// Hosts that can only be reached from this machine: a request naming one cannot have come
// through a DNS-rebinding or Host-header trick from elsewhere, so its origin is safe to echo.
const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Works out the base URL a `resource_url` names (PROTOCOL §6: configurable, never spoofable). */
export interface AdvertisedUrl {
  /**
   * The base for a resource tool call: `publicUrl`, else the MCP request's origin when its host
   * is trusted, else the first address a convenience listener bound.
   *
   * @param requestUrl - the MCP request's URL (`extra.requestInfo.url`), if it came over HTTP
   * @throws S2SPError `invalid_config` when no base can be trusted
   */
  resolve(requestUrl: URL | undefined): string;
  /** `publicUrl`, else the first listener's address, else `undefined`. */
  current(): string | undefined;
  /** Records a listener: its base becomes the fallback, and `hosts` become trusted. */
  addListener(base: string, hosts: readonly string[]): void;
}

/**
 * Creates the resolver of advertised base URLs.
 *
 * @param options - the normalised `publicUrl` and extra trusted `Host` values
 */
export function createAdvertisedUrl(options: {
  readonly publicUrl?: string | undefined;
  readonly trustedHosts: readonly string[];
}): AdvertisedUrl {
  const { publicUrl } = options;
  const trusted = new Set(options.trustedHosts.map((host) => host.toLowerCase()));
  let listenBase: string | undefined;

  return {
    resolve(requestUrl) {
      if (publicUrl) return publicUrl;
      if (requestUrl) {
        const host = requestUrl.host.toLowerCase();
        const hostname = requestUrl.hostname.toLowerCase();
        if (LOOPBACK_HOSTNAMES.has(hostname) || trusted.has(host) || trusted.has(hostname))
          return requestUrl.origin;
      }
      if (listenBase) return listenBase;
      throw new S2SPError(
        'invalid_config',
        requestUrl
          ? 'This server does not trust the Host of this request to name its data plane, so it cannot return a resource_url. This is the server\'s configuration, not your call: the operator must set publicUrl (or list the host in trustedHosts). Until then, call the tool with mode="sync" or without abstract_domains.'
          : 'This server has no address for its data plane (it is not serving MCP over HTTP), so it cannot return a resource_url. This is the server\'s configuration, not your call: the operator must set publicUrl to where the data plane is served. Until then, call the tool with mode="sync" or without abstract_domains.',
      );
    },
    current() {
      return publicUrl ?? listenBase;
    },
    addListener(base, hosts) {
      listenBase ??= base;
      for (const host of hosts) trusted.add(host.toLowerCase());
    },
  };
}
