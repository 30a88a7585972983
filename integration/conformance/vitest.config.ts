import { defineProject } from 'vitest/config';
import { sourceAliases } from '../../vitest.aliases.js';

export default defineProject({
  resolve: { alias: sourceAliases },
  test: {
    name: 'conformance',
    environment: 'node',
    setupFiles: ['../agents/test/loopback-only.ts'],
    // One conformance run is some 30 scenarios, each a fresh MCP session on loopback.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
