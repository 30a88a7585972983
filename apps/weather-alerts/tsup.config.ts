import { defineConfig } from 'tsup';

// main.js and replay-main.js keep their `#!/usr/bin/env node` line (esbuild preserves a leading
// hashbang), so `bin` works after `pnpm build`. Declarations only for index: the demo script and
// other TypeScript code import the building blocks from there.
export default defineConfig({
  entry: { main: 'src/main.ts', 'replay-main': 'src/replay-main.ts', index: 'src/index.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
