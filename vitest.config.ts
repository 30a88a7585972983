import { defineConfig } from 'vitest/config';

// One `vitest run` at the root runs every package and app as its own project.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'integration/*', 'reliability', 'docs', 'scripts'],
    reporters: [
      'default',
      './scripts/vitest-summary-reporter.ts',
      './scripts/vitest-progress-reporter.ts',
    ],
  },
});
