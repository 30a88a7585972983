import { defineProject } from 'vitest/config';

export default defineProject({
  // The site is built once, in beforeAll (TypeDoc, then VitePress): about 30 s on a quiet machine.
  test: { name: 'docs', environment: 'node', testTimeout: 60_000, hookTimeout: 240_000 },
});
