import { defineProject } from 'vitest/config';
import { sourceAliases } from '../../vitest.aliases.js';

export default defineProject({
  resolve: { alias: sourceAliases },
  test: {
    name: 'cache-redis',
    environment: 'node',
    // Every test file starts its own redis-server processes; a cluster takes a few seconds.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
