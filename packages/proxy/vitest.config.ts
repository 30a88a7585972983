import { defineProject } from 'vitest/config';
import { sourceAliases } from '../../vitest.aliases.js';

export default defineProject({
  resolve: { alias: sourceAliases },
  test: { name: 'proxy', environment: 'node', testTimeout: 60_000, hookTimeout: 60_000 },
});
