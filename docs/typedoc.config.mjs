// The API reference: TypeDoc reads the TSDoc of every public entry point of the five published
// packages (the subpaths their package.json `exports` name) and writes Markdown pages into `api/`
// for VitePress (typedoc-plugin-markdown + typedoc-vitepress-theme). Generated, never committed.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const docs = dirname(fileURLToPath(import.meta.url));
const root = join(docs, '..');
export const PUBLISHED = ['core', 'server', 'client', 'cache-redis', 'proxy'];

/** Each public import specifier of a published package and the source file behind it. */
export function publicEntryPoints() {
  const entries = [];
  for (const dir of PUBLISHED) {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string') continue; // ./package.json
      const source = target.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
      entries.push({
        specifier: manifest.name + subpath.slice(1),
        file: join(root, 'packages', dir, source),
      });
    }
  }
  return entries;
}

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'API reference',
  plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme', './typedoc-module-names.mjs'],
  entryPointStrategy: 'resolve',
  entryPoints: publicEntryPoints().map((entry) => relative(docs, entry.file)),
  tsconfig: './tsconfig.api.json',
  out: './api',
  docsRoot: '.',
  readme: 'none',
  outputFileStrategy: 'modules',
  // Explicit anchors on headings: a page with two reflections of one name (a type and a value)
  // would otherwise get links numbered one way by the plugin and another by VitePress.
  useHTMLAnchors: true,
  excludePrivate: true,
  excludeInternal: true,
  treatWarningsAsErrors: false,
  logLevel: 'Warn',
  // The packages' own typecheck reports type errors; the reference only reads the declarations.
  skipErrorChecking: true,
  // "Defined in" links to the file on GitHub, whatever the clone's remotes.
  disableGit: true,
  displayBasePath: '..',
  sourceLinkTemplate: 'https://github.com/s2sp/s2sp-typescript/blob/main/{path}#L{line}',
};
