import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { run: 'src/run.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
  // @s2sp/test-utils is source-only TypeScript: bundle it rather than import it at run time.
  noExternal: ['@s2sp/test-utils'],
});
