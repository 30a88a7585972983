/**
 * A first `pnpm install` compiles nothing from C: no package that pnpm-workspace.yaml lets run
 * its install script builds a native addon (a `binding.gyp`, or node-gyp in its scripts). A test
 * that needs one (the proxy's sqlite3-based real servers) builds it itself.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STORE = join(ROOT, 'node_modules', '.pnpm');

/** The names listed under `key:` in pnpm-workspace.yaml. */
function listed(key: string): string[] {
  const text = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8');
  const block = new RegExp(`^${key}:\\n((?:[ \\t]+.*\\n|\\n)*)`, 'm').exec(text)?.[1] ?? '';
  return [...block.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1] ?? '');
}

/** Every installed copy of a package, by its directory in pnpm's virtual store. */
function installed(): { name: string; dir: string }[] {
  const found: { name: string; dir: string }[] = [];
  for (const entry of readdirSync(STORE)) {
    const modules = join(STORE, entry, 'node_modules');
    if (!existsSync(modules)) continue;
    // `@scope+name@1.2.3…` holds node_modules/@scope/name; `name@1.2.3…` node_modules/name.
    const name = entry.slice(0, entry.indexOf('@', 1)).replace('+', '/');
    const dir = join(modules, name);
    if (existsSync(join(dir, 'package.json'))) found.push({ name, dir });
  }
  return found;
}

function compilesNative(dir: string): boolean {
  const { scripts = {} } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const install = [scripts.preinstall, scripts.install, scripts.postinstall].join(' ');
  return existsSync(join(dir, 'binding.gyp')) || /node-gyp|cmake-js/.test(install);
}

describe('pnpm install', () => {
  it('lets no package compile a native addon', () => {
    const allowed = listed('onlyBuiltDependencies');
    expect(allowed).toContain('esbuild');
    const packages = installed();
    const compilers = packages
      .filter(({ name }) => allowed.includes(name))
      .filter(({ dir }) => compilesNative(dir))
      .map(({ name }) => name);
    expect(compilers).toEqual([]);
    // The ones that would compile are listed as ignored, so pnpm install does not ask about them.
    const ignored = listed('ignoredBuiltDependencies');
    expect(ignored).toContain('sqlite3');
    const native = [
      ...new Set(packages.filter(({ dir }) => compilesNative(dir)).map((p) => p.name)),
    ];
    expect(native.filter((name) => !ignored.includes(name))).toEqual([]);
  });
});
