import { createRequire } from 'node:module';
import { defineWorkspaceProject } from '../../vitest.shared.js';

const require = createRequire(import.meta.url);

export default defineWorkspaceProject({
  name: 'agents',
  // Its setup file patches net.Socket once per file: each file gets a fresh module graph.
  isolate: true,
  setupFiles: [require.resolve('@s2sp/test-utils/loopback-only')],
  testTimeout: 120_000,
  hookTimeout: 60_000,
});
