import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', settings: 'src/settings.ts' },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
