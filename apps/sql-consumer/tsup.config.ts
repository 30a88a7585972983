import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { main: 'src/main.ts', index: 'src/index.ts', 'query-worker': 'src/query-worker.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
