import { defineWorkspaceProject } from '../../vitest.shared.js';

export default defineWorkspaceProject({ name: 'proxy', testTimeout: 60_000, hookTimeout: 60_000 });
