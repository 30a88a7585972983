#!/usr/bin/env node
/**
 * Import circles in the library code of the published packages: groups of files that import each
 * other, directly or round a loop (`packages/<name>/src`, tests left out). Relative imports only
 * (a package reaches another through its public entries, which the package-boundary test guards).
 * `import type` counts too: a type-only circle is still two files that cannot be read, moved or
 * split one without the other. Each circle is a strongly connected component of the import graph.
 *
 * Run it: `node scripts/import-circles.mjs` prints the circles and exits 1 when there is any;
 * `scripts/import-circles.test.ts` keeps the count at zero.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// `from '…'`, `import '…'`, `import('…')`: static and dynamic imports and re-exports.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The library files of a `src` folder: TypeScript, no tests. */
function libraryFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__fixtures__' ? [] : libraryFiles(path);
    return /\.m?ts$/.test(entry.name) && !/\.(test|bench)\.m?ts$/.test(entry.name) ? [path] : [];
  });
}

/** The file a relative specifier names (`./a.js` is `./a.ts`; a folder is its `index.ts`). */
function resolveImport(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base.replace(/\.m?js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    base,
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find((path) => existsSync(path) && /\.m?ts$/.test(path));
}

/**
 * The import circles of the packages' library code, each a sorted list of paths relative to the
 * repository, largest first.
 *
 * @param {string} [root] - the repository
 * @returns {string[][]}
 */
export function importCircles(root = ROOT) {
  const packages = join(root, 'packages');
  const files = readdirSync(packages)
    .map((name) => join(packages, name, 'src'))
    .filter((src) => existsSync(src))
    .flatMap(libraryFiles);
  const edges = new Map(
    files.map((file) => {
      const text = readFileSync(file, 'utf8');
      const targets = [...text.matchAll(SPECIFIER)]
        .map((match) => resolveImport(file, match[1]))
        .filter((target) => target !== undefined);
      return [file, [...new Set(targets)]];
    }),
  );
  // Tarjan's strongly connected components, iteratively (deep chains would overflow the stack).
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  for (const start of files) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, next] = frame;
      const targets = edges.get(node) ?? [];
      if (next < targets.length) {
        frame[1]++;
        const target = targets[next];
        if (!edges.has(target)) continue;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push([target, 0]);
        } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) !== index.get(node)) continue;
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfImport = (edges.get(node) ?? []).includes(node);
      if (component.length > 1 || selfImport)
        circles.push(component.map((path) => relative(root, path)).sort());
    }
  }
  return circles.sort((a, b) => b.length - a.length);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const circles = importCircles();
  for (const circle of circles)
    console.log(`circle of ${circle.length}:\n  ${circle.join('\n  ')}`);
  console.log(`${circles.length} import circle(s) in library code`);
  process.exitCode = circles.length > 0 ? 1 : 0;
}
