import { defineWorkspaceProject } from '../../vitest.shared.js';

export default defineWorkspaceProject({ name: 'chart-consumer' });
