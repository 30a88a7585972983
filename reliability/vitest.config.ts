import { defineProject } from 'vitest/config';
import { sourceAliases } from '../vitest.aliases.js';

export default defineProject({
  resolve: { alias: sourceAliases },
  test: {
    name: 'reliability',
    environment: 'node',
    globalSetup: ['./test/global-setup.ts'],
    setupFiles: ['./test/setup.ts'],
    // The figures measure time (latency, timeouts, reclamation): the files run one after another
    // so they do not measure each other, and after every other project (groupOrder), alone.
    fileParallelism: false,
    sequence: { groupOrder: 1 },
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
