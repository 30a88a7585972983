import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One `vitest run` at the root runs every package and app as its own project.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'integration/*', 'reliability', 'docs', 'scripts'],
    // Vitest's default is one worker fewer than the cores: a single worker on a 2-core machine,
    // where most test files spend their time waiting on the servers and programs they start
    // (redis-server, PostgreSQL, Chromium, child processes, loopback HTTP), not on the CPU. Two
    // workers overlap those waits; more cores keep the default. The projects that must run alone
    // (reliability's figures, the agent frameworks) still do: fileParallelism: false.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: [
      'default',
      './scripts/vitest-summary-reporter.ts',
      './scripts/vitest-progress-reporter.ts',
    ],
  },
});
