// The API reference: TypeDoc reads the TSDoc of every public entry point of the five published
// packages (the subpaths their package.json `exports` name) and writes Markdown pages into `api/`
// for VitePress (typedoc-plugin-markdown + typedoc-vitepress-theme). Generated, never committed.
// A page per class and interface and a page per entry point that opens with the factories a
// reader starts from (START_HERE): one page for all of `@s2sp/server` was 286 KB of HTML with
// `createS2SP` four fifths of the way down. docs/test/site.test.ts checks the built pages.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const docs = dirname(fileURLToPath(import.meta.url));
const root = join(docs, '..');
// Core first: TypeDoc documents a symbol two packages export (`fetchBody`) where it meets it first.
export const PUBLISHED = ['core', 'server', 'client', 'cache-redis', 'proxy'];
/** The order the reference lists the packages in: the ones a reader starts from first. */
export const READING_ORDER = ['server', 'client', 'proxy', 'cache-redis', 'core'];

/**
 * The functions a reader of each entry point starts from, in this order: the entry point's page
 * documents them first, under "Start here", before its other exports by kind. Functions only: a
 * class or an interface has a page of its own, which a group of the entry point's page can only
 * list if the whole group is such pages.
 */
export const START_HERE = {
  '@s2sp/server': ['createS2SP', 'createS2SPServer'],
  '@s2sp/server/http': ['createS2SPEdge', 'mountDataPlane'],
  '@s2sp/client': ['withS2SP'],
  '@s2sp/proxy': ['createS2SPProxy'],
  '@s2sp/cache-redis': ['createRedisBodyStore'],
  '@s2sp/core': ['fetchBody', 'fetchBodyRows'],
};

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
  // A page per class and interface (the options objects are most of the bulk); functions, types
  // and constants stay on their entry point's page, whose tables list the rest with a summary
  // each (typedoc-module-names.mjs defines the router). A page for every symbol too would be 300
  // pages, which tripled the time VitePress takes to build the site.
  router: 's2sp-members',
  membersWithOwnFile: ['Class', 'Interface'],
  indexFormat: 'table',
  // The entry points in READING_ORDER (typedoc-module-names.mjs), not alphabetical; within a
  // page, "Start here" first, then functions and classes before the interfaces and types they take.
  sortEntryPoints: false,
  groupOrder: [
    'Start here',
    'Functions',
    'Classes',
    'Interfaces',
    'Type Aliases',
    'Variables',
    'Enumerations',
    'Constructors',
    'Properties',
    'Accessors',
    'Methods',
    '*',
  ],
  // Explicit anchors on headings: a page with two reflections of one name (a type and a value)
  // would otherwise get links numbered one way by the plugin and another by VitePress.
  useHTMLAnchors: true,
  excludePrivate: true,
  excludeInternal: true,
  treatWarningsAsErrors: false,
  logLevel: 'Warn',
  // The packages' own typecheck reports type errors; the reference only reads the declarations.
  skipErrorChecking: true,
  // "Defined in" links to the file on GitHub, whatever the clone's remotes. A member declared in
  // node_modules (an `Error`'s `message`, `[Symbol.asyncDispose]`) gets no link: the repository
  // has no such file (typedoc-module-names.mjs drops those sources).
  disableGit: true,
  displayBasePath: '..',
  sourceLinkTemplate: 'https://github.com/s2sp/s2sp-typescript/blob/main/{path}#L{line}',
};
