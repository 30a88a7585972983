import { defineProject } from 'vitest/config';
import { sourceAliases } from '../../vitest.aliases.js';

export default defineProject({
  resolve: { alias: sourceAliases },
  test: {
    name: 'agents',
    environment: 'node',
    setupFiles: ['./test/loopback-only.ts'],
    // Each file starts the NWS replay, weather-alerts, chart-consumer and a scripted model; the
    // Claude Agent SDK also starts its CLI process. One file at a time keeps the 2-core CI calm.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
