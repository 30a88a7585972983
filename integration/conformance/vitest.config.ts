import { defineProject } from 'vitest/config';
import { sourceAliases } from '../../vitest.aliases.js';

export default defineProject({
  resolve: { alias: sourceAliases },
  test: {
    name: 'conformance',
    environment: 'node',
    setupFiles: ['../agents/test/loopback-only.ts'],
    // One conformance run (in a beforeAll) is some 30 scenarios, each a fresh MCP session on
    // loopback, a few seconds in all; the CLI is killed after 90 s, so a hung scenario fails
    // with the CLI's output rather than as a hook timeout.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
