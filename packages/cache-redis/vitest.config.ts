import { defineWorkspaceProject } from '../../vitest.shared.js';

// Every test file starts its own redis-server processes; a cluster takes a few seconds.
export default defineWorkspaceProject({ name: 'cache-redis', hookTimeout: 60_000 });
