import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'http/index': 'src/http/index.ts',
    node: 'src/node.ts',
    slop: 'src/slop.ts',
    'a2s/index': 'src/a2s/index.ts',
    env: 'src/env.ts',
    gateway: 'src/gateway.ts',
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
