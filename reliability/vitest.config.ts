import { createRequire } from 'node:module';
import { defineWorkspaceProject } from '../vitest.shared.js';

// The published figures (`SOAK=1`) measure time (latency, timeouts, reclamation): their files run
// one after another, after every other project (groupOrder), alone, so that nothing measures
// anything else. At CI size the same tests assert only generous bounds, and run beside the rest.
const soak = Boolean(process.env.SOAK);

const require = createRequire(import.meta.url);

export default defineWorkspaceProject({
  name: 'reliability',
  // Its set-up file installs the loopback guard once per file: each file gets a fresh module graph.
  isolate: true,
  globalSetup: ['./test/global-setup.ts'],
  setupFiles: [require.resolve('@s2sp/test-utils/loopback-only')],
  fileParallelism: !soak,
  sequence: { groupOrder: soak ? 1 : 0 },
  testTimeout: 120_000,
  hookTimeout: 60_000,
});
