import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { exports } = JSON.parse(
  readFileSync(new URL('./package.json', import.meta.url), 'utf8'),
) as {
  exports: Record<string, string | { import?: string }>;
};

/**
 * One entry per subpath of `package.json` `exports`, the adapter registry: `./dist/x.js` is built
 * from `./src/x.ts` (as `vitest.shared.ts` resolves it in tests), so a new adapter adds no line
 * here.
 */
export const entry: Record<string, string> = Object.fromEntries(
  Object.values(exports).flatMap((target) => {
    const file = typeof target === 'string' ? undefined : target.import;
    const name = /^\.\/dist\/(.+)\.js$/.exec(file ?? '')?.[1];
    return name === undefined ? [] : [[name, `src/${name}.ts`]];
  }),
);

export default defineConfig({
  entry,
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
