/**
 * What `s2sp-proxy` can be told by its flags, its `--config` file and its environment: the
 * proxy's options that have a flag, a file key or a variable, and the process settings (port,
 * host, log level, Redis) the servers' and the Redis store's own rules check.
 *
 * @module
 */

import { RedisStoreSettingsSchema } from '@s2sp/cache-redis/settings';
import { optionRows } from '@s2sp/core/options';
import { EdgeOptionsSchema, S2SPServerOptionsSchema, ServerSettingsSchema } from '@s2sp/server/env';
import { S2SPProxyOptionsSchema } from '../proxy-options.js';

/**
 * The settings of one `s2sp-proxy` run: every flag, file key and variable it reads is a name on a
 * member of this schema, and each value is checked by that member's rule.
 */
export const ProxySettingsSchema = S2SPProxyOptionsSchema.omit({
  upstream: true,
  store: true,
  logger: true,
  onUpstreamStderr: true,
}).extend({
  // The tokens are all the command line can set of `auth`: its help says so.
  auth: S2SPProxyOptionsSchema.shape.auth.meta({
    description:
      'Require `Authorization: Bearer <token>` on `/mcp`, at least 16 characters (repeatable; the variable is comma-separated). Prefer the variable or the file: other local users can read a command line.',
  }),
  port: ServerSettingsSchema.shape.port.meta({
    defaultText: '3010; with --stdio, a free port',
    description: 'HTTP port for `/mcp` and the data plane.',
  }),
  host: ServerSettingsSchema.shape.host,
  logLevel: ServerSettingsSchema.shape.logLevel,
  redis: RedisStoreSettingsSchema.optional().meta({ expand: true }),
});

/**
 * The variables the proxy reads: the servers' HTTP edge and the Redis key prefix. Its other
 * settings come from flags and the file only, so that variables meant for an app beside it
 * (`PORT`, `REDIS_URL`, `S2SP_TTL_SECONDS`) never move the proxy.
 */
export const PROXY_VARIABLES: ReadonlySet<string> = new Set(
  [
    ...optionRows(EdgeOptionsSchema),
    ...optionRows(RedisStoreSettingsSchema.pick({ keyPrefix: true })),
  ].flatMap((row) => row.env),
);

/**
 * The settings of the servers (an app beside the proxy may share its environment): a variable of
 * theirs is never taken for a slip of one of the proxy's.
 */
export const NEIGHBOUR_SETTINGS = [ServerSettingsSchema, S2SPServerOptionsSchema] as const;
