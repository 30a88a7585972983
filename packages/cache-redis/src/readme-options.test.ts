import { fileURLToPath } from 'node:url';
import { optionRows } from '@s2sp/core/options';
import { readmeOptionsDiff } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { RedisBodyStoreOptionsSchema } from './store-options.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));

describe("@s2sp/cache-redis's README options table", () => {
  it('lists every option of createRedisBodyStore with its default, and nothing else', () => {
    expect(
      readmeOptionsDiff(README, 'createRedisBodyStore', optionRows(RedisBodyStoreOptionsSchema)),
    ).toEqual([]);
  });
});
