/**
 * The `sqlite3` native binding that two servers of the real-server matrix load
 * (mcp-server-sqlite-npx, @executeautomation/database-server). `pnpm install` does not build it
 * (pnpm-workspace.yaml lists it in `ignoredBuiltDependencies`), so that a first install compiles
 * nothing; the tests that start those servers build it here, once, the way its own install script
 * would: a prebuilt binary where one can be downloaded, else a compile (make and g++).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The sqlite3 package that the server package `server` resolves. */
export function sqlite3Directory(server: string): string {
  const fromServer = createRequire(require.resolve(`${server}/package.json`));
  return dirname(fromServer.resolve('sqlite3/package.json'));
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
    const child = spawn('sh', ['-c', 'prebuild-install -r napi || node-gyp rebuild'], {
      cwd: dir,
      env: {
        ...process.env,
        PATH: `${join(dir, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output = (output + chunk).slice(-20_000);
    });
    child.stderr.on('data', (chunk) => {
      output = (output + chunk).slice(-20_000);
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0 || !existsSync(bindingFile(dir)))
      throw new Error(
        `building sqlite3 in ${dir} failed (exit ${code}); it needs python3, make and g++:\n${output}`,
      );
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
