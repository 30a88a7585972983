import { configError, type Env, envList, envString } from '@s2sp/server/env';

// TODO(lead): these three readers are chart-consumer's (apps/chart-consumer/src/config.ts), copied
// because @s2sp/server/env has no reader for the consumer settings every consumer app shares
// (S2SP_ALLOWED_ORIGINS, S2SP_CONSUMER_DESTINATIONS, S2SP_PATH_PREFIXES,
// S2SP_MAX_CONCURRENT_FETCHES). A public `loadConsumerEnv(env)` returning `ConsumerFetchOptions`
// would replace this file in both apps.

/** An origin, or an origin with the path prefix its resource_urls live under. */
function origin(value: string): string {
  try {
    const url = new URL(value);
    if (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      !url.username &&
      !url.password &&
      !url.search &&
      !url.hash
    )
      return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    // reported below
  }
  throw configError(
    'S2SP_ALLOWED_ORIGINS',
    `"${value}" is not an http(s) origin such as http://127.0.0.1:3001 (optionally with a path prefix such as https://gateway.example.com/weather).`,
  );
}

function pathPrefix(value: string): string {
  if (/^\/?[A-Za-z0-9._~!$&'()*+,;=:@%-]+(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*\/?$/.test(value))
    return `/${value.replace(/^\/+|\/+$/g, '')}`;
  throw configError('S2SP_PATH_PREFIXES', `"${value.slice(0, 40)}" is not a path such as /api.`);
}

/** The consumer fetch settings of the environment, as chart-consumer reads them. */
export interface ConsumerEnv {
  /** Origins (each with an optional path prefix) `query_tables` may fetch from. */
  readonly allowedOrigins: string[] | undefined;
  /** Without an allow-list: public internet only (default) or anywhere. */
  readonly destinations: 'public' | 'any';
  /** Path prefixes allowed before `/s2sp/data/{token}` on any origin. */
  readonly pathPrefixes: string[] | undefined;
}

/**
 * Reads `S2SP_ALLOWED_ORIGINS`, `S2SP_CONSUMER_DESTINATIONS` and `S2SP_PATH_PREFIXES`.
 *
 * @throws S2SPError `invalid_config` naming the variable when a value is invalid
 */
export function loadConsumerEnv(env: Env): ConsumerEnv {
  const destinations = envString(env, 'S2SP_CONSUMER_DESTINATIONS')?.toLowerCase() ?? 'public';
  if (destinations !== 'public' && destinations !== 'any') {
    throw configError(
      'S2SP_CONSUMER_DESTINATIONS',
      `"${destinations.slice(0, 40)}" is not "public" (the default: only public internet addresses unless S2SP_ALLOWED_ORIGINS lists the origin) or "any" (development only).`,
    );
  }
  return {
    allowedOrigins: envList(env, 'S2SP_ALLOWED_ORIGINS')?.map(origin),
    destinations,
    pathPrefixes: envList(env, 'S2SP_PATH_PREFIXES')?.map(pathPrefix),
  };
}
