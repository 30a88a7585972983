import { defineProject } from 'vitest/config';
import { sourceAliases } from '../../vitest.aliases.js';

export default defineProject({
  resolve: { alias: sourceAliases },
  test: { name: 'demo', environment: 'node', testTimeout: 90_000 },
});
