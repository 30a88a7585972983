import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packagesDir = fileURLToPath(new URL('./packages/', import.meta.url));

interface ExportTarget {
  readonly import?: string;
}

/**
 * Resolves the workspace packages to their TypeScript sources in tests, so `vitest` needs no
 * build and coverage maps to `src`. Generated from each package's `exports` map (every
 * `./dist/x.js` is built from `./src/x.ts`), so a new subpath needs no line here. More specific
 * subpaths come first. The published `dist` is exercised by the packaging test.
 */
export const sourceAliases: { find: RegExp; replacement: string }[] = readdirSync(packagesDir, {
  withFileTypes: true,
})
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) => {
    const dir = `${packagesDir}${entry.name}/`;
    let manifest: { name?: string; exports?: Record<string, string | ExportTarget> };
    try {
      manifest = JSON.parse(readFileSync(`${dir}package.json`, 'utf8'));
    } catch {
      return [];
    }
    const { name, exports = {} } = manifest;
    if (!name) return [];
    return Object.entries(exports).flatMap(([subpath, target]) => {
      const file = typeof target === 'string' ? target : target.import;
      if (!file?.startsWith('./dist/') || !file.endsWith('.js')) return [];
      const source = `${dir}src/${file.slice('./dist/'.length, -'.js'.length)}.ts`;
      const specifier = subpath === '.' ? name : `${name}/${subpath.slice(2)}`;
      return [{ find: new RegExp(`^${specifier.replace(/[/.]/g, '\\$&')}$`), replacement: source }];
    });
  })
  .sort((a, b) => b.find.source.length - a.find.source.length);
