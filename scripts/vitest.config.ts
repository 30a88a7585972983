import { defineProject } from 'vitest/config';

// The repository's own scripts (the launchers behind `pnpm dev` and `pnpm demo`), run as a user
// runs them.
export default defineProject({
  test: { name: 'scripts', environment: 'node', testTimeout: 60_000 },
});
