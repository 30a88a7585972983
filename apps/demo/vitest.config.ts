import { defineWorkspaceProject } from '../../vitest.shared.js';

export default defineWorkspaceProject({ name: 'demo', testTimeout: 90_000 });
