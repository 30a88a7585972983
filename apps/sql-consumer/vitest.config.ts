import { defineProject } from 'vitest/config';
import { sourceAliases } from '../../vitest.aliases.js';

export default defineProject({
  resolve: { alias: sourceAliases },
  test: { name: 'sql-consumer', environment: 'node', testTimeout: 30_000 },
});
