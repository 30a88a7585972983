import { defineWorkspaceProject } from '../vitest.shared.js';

// The site is built once, in beforeAll (TypeDoc, then VitePress): about 30 s on a quiet machine.
export default defineWorkspaceProject({ name: 'docs', testTimeout: 60_000, hookTimeout: 240_000 });
