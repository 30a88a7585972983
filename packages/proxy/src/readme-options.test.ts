import { fileURLToPath } from 'node:url';
import { optionRows } from '@s2sp/core/options';
import { readmeFlagsDiff } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { ProxySettingsSchema } from './cli/proxy-settings.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));

describe("@s2sp/proxy's README flag table", () => {
  it('lists every flag the options schema maps', () => {
    // The proxy's options, the process settings and the Redis store's (--redis, --redis-prefix).
    const rows = optionRows(ProxySettingsSchema);
    expect(rows.flatMap((row) => row.flags)).toEqual(
      expect.arrayContaining([
        '--ttl',
        '--token-budget',
        '--auth-token',
        '--body-timeout-ms',
        '--redis-prefix',
        '--redis',
        '--port',
        '--log-level',
      ]),
    );
    expect(readmeFlagsDiff(README, 's2sp-proxy', rows)).toEqual([]);
  });
});
