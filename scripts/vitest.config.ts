import { defineWorkspaceProject } from '../vitest.shared.js';

// The repository's own scripts (the launchers behind `pnpm dev` and `pnpm demo`), run as a user
// runs them.
export default defineWorkspaceProject({ name: 'scripts', testTimeout: 60_000 });
