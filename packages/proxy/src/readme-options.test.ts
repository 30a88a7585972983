import { fileURLToPath } from 'node:url';
import { RedisStoreSettingsSchema } from '@s2sp/cache-redis/settings';
import { optionRows } from '@s2sp/core/options';
import { readmeFlagsDiff } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { S2SPProxyOptionsSchema } from './proxy-options.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));

describe("@s2sp/proxy's README flag table", () => {
  it('lists every flag the options schema maps', () => {
    // The proxy's own options, and the Redis store's settable ones (--redis-prefix).
    const rows = [...optionRows(S2SPProxyOptionsSchema), ...optionRows(RedisStoreSettingsSchema)];
    expect(rows.flatMap((row) => row.flags)).toEqual(
      expect.arrayContaining([
        '--ttl',
        '--token-budget',
        '--auth-token',
        '--body-timeout-ms',
        '--redis-prefix',
      ]),
    );
    expect(readmeFlagsDiff(README, 's2sp-proxy', rows)).toEqual([]);
  });
});
