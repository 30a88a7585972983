import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'advice/index': 'src/advice/index.ts',
    'store/index': 'src/store/index.ts',
    json: 'src/json.ts',
    options: 'src/options.ts',
    receipt: 'src/receipt.ts',
    otel: 'src/otel.ts',
    'node/index': 'src/node/index.ts',
    'testing/index': 'src/testing/index.ts',
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  // Optional peers, never bundled: vitest for `./testing`, the OpenTelemetry API for `./otel`.
  external: ['vitest', '@opentelemetry/api'],
});
