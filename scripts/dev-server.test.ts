/**
 * `pnpm dev`'s launcher, stopped as an operator stops it: Ctrl-C (SIGINT to the whole process
 * group, which pnpm also forwards to its child) or SIGTERM. The app is a real S2SP program ending
 * through `stopOnSignals` of the built `@s2sp/server`; the exit code must be 0, and pnpm must not
 * report a failed command.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LAUNCHER = join(ROOT, 'scripts', 'dev-server.mjs');
const STOP_ON_SIGNALS = pathToFileURL(join(ROOT, 'packages', 'server', 'dist', 'node.js')).href;
const { packageManager } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  packageManager: string;
};

/** A package with a tsup build of its own and an app that stops the way the demo apps do. */
function appPackage(devScript: string): string {
  const dir = mkdtempSync(join(tmpdir(), 's2sp-dev-'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'dev-fixture',
      private: true,
      type: 'module',
      packageManager,
      scripts: { dev: devScript },
      tsup: { entry: ['index.ts'], format: ['esm'], silent: true },
    }),
  );
  writeFileSync(join(dir, 'index.ts'), 'export const built: boolean = true;\n');
  writeFileSync(
    join(dir, 'app.mjs'),
    `import { stopOnSignals } from '${STOP_ON_SIGNALS}';
stopOnSignals(async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  process.stdout.write('stopped\\n');
});
process.stdout.write('ready\\n');
setInterval(() => {}, 1000);
`,
  );
  return dir;
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts `command` in a process group of its own, as a terminal does, and waits for "ready". */
async function start(command: string, args: string[], cwd: string) {
  const child = spawn(command, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const deadline = Date.now() + 30_000;
  while (!output.includes('ready')) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the app did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, exited, output: () => output };
}

function groupOf(child: ChildProcess): number {
  if (child.pid === undefined) throw new Error('no pid');
  return -child.pid;
}

/** The pnpm running this test (pnpm test), else the one on PATH. */
function pnpm(): [string, string[]] {
  const execPath = process.env.npm_execpath;
  return execPath?.includes('pnpm') ? [process.execPath, [execPath]] : ['pnpm', []];
}

describe('scripts/dev-server.mjs (pnpm dev)', () => {
  it('Ctrl-C stops the app through stopOnSignals and exits 0', async () => {
    const dir = appPackage('unused');
    dirs.push(dir);
    const app = await start(process.execPath, [LAUNCHER, process.execPath, 'app.mjs'], dir);
    process.kill(groupOf(app.child), 'SIGINT');
    expect(await app.exited).toEqual([0, null]);
    expect(app.output().match(/stopped/g)).toHaveLength(1);
  });

  it('SIGTERM to the launcher alone reaches the app, which stops; exit 0', async () => {
    const dir = appPackage('unused');
    dirs.push(dir);
    const app = await start(process.execPath, [LAUNCHER, process.execPath, 'app.mjs'], dir);
    app.child.kill('SIGTERM');
    expect(await app.exited).toEqual([0, null]);
    expect(app.output().match(/stopped/g)).toHaveLength(1);
  });

  it('under pnpm run, Ctrl-C ends with exit 0 and no failed-command report', async () => {
    const dir = appPackage(`exec node ${JSON.stringify(LAUNCHER)} node app.mjs`);
    dirs.push(dir);
    const [command, args] = pnpm();
    const app = await start(command, [...args, 'run', 'dev'], dir);
    process.kill(groupOf(app.child), 'SIGINT');
    expect(await app.exited).toEqual([0, null]);
    expect(app.output()).not.toMatch(/ELIFECYCLE/);
    expect(app.output().match(/stopped/g)).toHaveLength(1);
  });

  it('without a command, prints its usage and exits 2', async () => {
    const child = spawn(process.execPath, [LAUNCHER], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/^Usage: /);
  });
});
