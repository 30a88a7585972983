import { defineWorkspaceProject } from '../../vitest.shared.js';

export default defineWorkspaceProject({
  name: 'agents',
  // Its setup file patches net.Socket once per file: each file gets a fresh module graph.
  isolate: true,
  setupFiles: ['./test/loopback-only.ts'],
  testTimeout: 120_000,
  hookTimeout: 60_000,
});
