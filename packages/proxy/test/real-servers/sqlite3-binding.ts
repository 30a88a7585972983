/**
 * The `sqlite3` native binding that two servers of the real-server matrix load
 * (mcp-server-sqlite-npx, @executeautomation/database-server). `pnpm install` does not build it
 * (pnpm-workspace.yaml lists it in `ignoredBuiltDependencies`), so that a first install compiles
 * nothing; the tests that start those servers build it here, once, the way its own install script
 * would: a prebuilt binary where one can be downloaded, else a compile (make and g++).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/**
 * The sqlite3 package that the server package `server` resolves, as its real path: pnpm reaches
 * it through symlinks, and the build tools it runs are found relative to where it really is.
 */
export function sqlite3Directory(server: string): string {
  const fromServer = createRequire(require.resolve(`${server}/package.json`));
  return realpathSync(dirname(fromServer.resolve('sqlite3/package.json')));
}

/** Where `bindings` finds the compiled module. */
function bindingFile(dir: string): string {
  return join(dir, 'build', 'Release', 'node_sqlite3.node');
}

/**
 * Builds the sqlite3 binding unless it is there. Test files run in parallel: the first takes a
 * lock directory and builds, the others wait for the lock to go.
 *
 * @param server - the MCP server package that loads sqlite3
 * @throws Error with the build's output when it fails
 */
export async function ensureSqlite3Binding(server: string): Promise<void> {
  const dir = sqlite3Directory(server);
  if (existsSync(bindingFile(dir))) return;
  const lock = join(dir, '.s2sp-build-lock');
  try {
    mkdirSync(lock);
  } catch {
    while (existsSync(lock)) await new Promise((resolve) => setTimeout(resolve, 500));
    if (existsSync(bindingFile(dir))) return;
    throw new Error('another test process failed to build the sqlite3 binding: see its output');
  }
  try {
    process.stderr.write('building the sqlite3 binding for the real-server tests (once)…\n');
    // sqlite3's own install script, `prebuild-install -r napi || node-gyp rebuild`, with each tool
    // started by this Node from the file sqlite3 resolves, not through a `.bin` shim: a shim finds
    // its target relative to the path it was called by, which breaks when that path is a symlink.
    const fromSqlite3 = createRequire(join(dir, 'package.json'));
    let output = '';
    const run = async (script: string, args: string[]): Promise<number | null> => {
      const child = spawn(process.execPath, [fromSqlite3.resolve(script), ...args], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const keep = (chunk: Buffer) => {
        output = (output + chunk).slice(-20_000);
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    };
    let code = await run('prebuild-install/bin.js', ['-r', 'napi']);
    if (code !== 0) code = await run('node-gyp/bin/node-gyp.js', ['rebuild']);
    if (code !== 0 || !existsSync(bindingFile(dir)))
      throw new Error(
        `building sqlite3 in ${dir} failed (exit ${code}); it needs python3, make and g++:\n${output}`,
      );
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
