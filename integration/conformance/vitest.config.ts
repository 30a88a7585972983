import { createRequire } from 'node:module';
import { defineWorkspaceProject } from '../../vitest.shared.js';

const require = createRequire(import.meta.url);

export default defineWorkspaceProject({
  name: 'conformance',
  // Its setup file patches net.Socket once per file: each file gets a fresh module graph.
  isolate: true,
  setupFiles: [require.resolve('@s2sp/test-utils/loopback-only')],
  // One conformance run (in a beforeAll) is some 30 scenarios, each a fresh MCP session on
  // loopback, a few seconds in all; the CLI is killed after 90 s, so a hung scenario fails
  // with the CLI's output rather than as a hook timeout.
  testTimeout: 120_000,
  hookTimeout: 120_000,
});
