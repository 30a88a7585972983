import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One `vitest run` at the root runs every package and app as its own project.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'integration/*', 'reliability', 'docs', 'scripts'],
    // Vitest's default is one worker fewer than the cores: a single worker on a 2-core machine,
    // where many test files spend their time waiting on the servers and programs they start
    // (redis-server, PostgreSQL, Chromium, child processes, loopback HTTP, time-outs), not on the
    // CPU. Three workers overlap those waits (on a quiet 2-core machine: 7 min 37 s for `pnpm
    // test`, against 8 min 14 s with two); more cores keep the default. Reliability's soak run
    // (`SOAK=1`) still runs alone: see reliability/vitest.config.ts.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    reporters: [
      'default',
      './scripts/vitest-summary-reporter.ts',
      './scripts/vitest-progress-reporter.ts',
    ],
  },
});
