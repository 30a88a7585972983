import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    run: 'src/run.ts',
    // Each server under test and the load generator run in processes of their own.
    'server-process': 'src/procs/server.ts',
    'load-process': 'src/procs/load.ts',
    'table-upstream': 'src/procs/table-upstream.ts',
    // Records the Python reference's control-plane answers (bench/fixtures/python-reference).
    'record-python-reference': 'src/record-python-reference.ts',
    // Records a git revision's tools/list of weather-alerts (bench/fixtures/tools-list).
    'record-tools-list': 'src/record-tools-list.ts',
  },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
  // @s2sp/test-utils is source-only TypeScript: bundle it rather than import it at run time.
  noExternal: ['@s2sp/test-utils'],
});
