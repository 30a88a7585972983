/**
 * The samples a newcomer copies first, run as they would run them: the client sample
 * (`hono-client.ts`) against each server sample the README and the guides give (SDK v2 and SDK v1),
 * each started with tsx on a loopback port; and every file of `packages/server/examples` type-checked
 * with the `tsconfig.json` the guides give, under each TypeScript major users have (5.9, the
 * repository's own, and 7). The samples import `@s2sp/*` by name, as a user's project does, so they
 * run against the built packages: `pnpm test` builds before it runs vitest.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './build-site.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const EXAMPLES = join(ROOT, 'packages/server/examples');
const TSX = join(dirname(require.resolve('tsx/package.json')), 'dist/cli.mjs');
/** The two TypeScript majors: the repository's own (5.9) and 7, a dev dependency of scripts/. */
const COMPILERS = [
  ['5.9', join(dirname(require.resolve('typescript/package.json')), 'bin/tsc')],
  ['7', join(ROOT, 'scripts/node_modules/typescript7/bin/tsc')],
] as const;

const scratch = mkdtempSync(join(tmpdir(), 's2sp-samples-'));
// A user's ES module project, whose bare imports resolve as from the samples' own package.
writeFileSync(join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));
symlinkSync(join(ROOT, 'packages/server/node_modules'), join(scratch, 'node_modules'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

beforeAll(() => {
  for (const pkg of ['core', 'server'])
    if (!existsSync(join(ROOT, 'packages', pkg, 'dist/index.js')))
      throw new Error(`packages/${pkg}/dist is missing: run \`pnpm build\` first`);
});

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
});

/** Starts a server sample as the README says (`npx tsx server.ts`) with PORT=0; resolves its URL. */
function startServer(file: string): Promise<URL> {
  const child = spawn(process.execPath, [TSX, file], {
    cwd: EXAMPLES,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /http:\/\/\S+\/mcp\b/.exec(output);
      if (match) resolve(new URL(match[0]));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}):\n${output}`)));
  });
}

/** Runs a client file with tsx against `url`'s port; its exit code and what it printed. */
async function runClient(file: string, cwd: string, url: URL) {
  try {
    const { stdout, stderr } = await run(process.execPath, [TSX, file], {
      cwd,
      env: { ...process.env, PORT: url.port },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

const rows = {
  abstract: [
    { _row_id: 0, name: 'North' },
    { _row_id: 1, name: 'South' },
  ],
  body: [
    { _row_id: 0, id: 'TX-1', name: 'North', elevation_m: 210, notes: 'rooftop' },
    { _row_id: 1, id: 'TX-2', name: 'South', elevation_m: 12, notes: 'airport' },
  ],
};

describe('the client sample against every server sample', () => {
  it.each([
    // SDK v2 serves both eras: 'auto' negotiates 2026-07-28, 'legacy' shakes hands the 2025 way.
    ['hono-server.ts', ['modern', 'legacy']],
    // SDK v1 serves the 2025 revisions: 'auto' falls back to the 2025 handshake.
    ['hono-server-v1.ts', ['legacy', 'legacy']],
  ])('hono-client.ts against %s: splits the rows and redeems the body', async (server, eras) => {
    const url = await startServer(server);
    const { code, stdout, stderr } = await runClient('hono-client.ts', EXAMPLES, url);
    expect(code, stderr).toBe(0);
    const printed = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(printed).toEqual(eras.map((era) => ({ era, ...rows })));
    if (server !== 'hono-server.ts') return;
    // The first-server tutorial runs this pair: the output it tells the reader to expect is this.
    const tutorial = readFileSync(join(ROOT, 'docs/guide/first-server.md'), 'utf8');
    expect(/```sh\nnpx tsx client\.ts\n```\n\n```\n([\s\S]*?)```/.exec(tutorial)?.[1]).toBe(stdout);
  });

  it('a client pinned to 2026-07-28 fails against the SDK v1 server sample: ERA_NEGOTIATION_FAILED', async () => {
    // The client the README gave before: a pin has no fallback to the 2025 handshake.
    const sample = readFileSync(join(EXAMPLES, 'hono-client.ts'), 'utf8');
    const pinned = sample.replace(
      "['auto', 'legacy'] as const",
      "[{ pin: '2026-07-28' }] as const",
    );
    expect(pinned).not.toBe(sample);
    writeFileSync(join(scratch, 'pinned-client.ts'), pinned);
    const url = await startServer('hono-server-v1.ts');
    const { code, stdout, stderr } = await runClient('pinned-client.ts', scratch, url);
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain("code: 'ERA_NEGOTIATION_FAILED'");
  });
});

describe('the samples type-check with the tsconfig.json the guides give', () => {
  /** Runs one `tsc` over a project; its exit code and output. */
  async function tsc(compiler: string, project: string) {
    try {
      const { stdout } = await run(process.execPath, [compiler, '-p', project]);
      return { code: 0, output: stdout };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { code, output: stdout + stderr };
    }
  }

  it.each(COMPILERS)(
    'TypeScript %s: every file of packages/server/examples',
    async (major, compiler) => {
      const { stdout } = await run(process.execPath, [compiler, '--version']);
      expect(stdout).toMatch(new RegExp(`^Version ${major.replace('.', '\\.')}\\.`));
      const { code, output } = await tsc(compiler, join(EXAMPLES, 'tsconfig.json'));
      expect(output).toBe('');
      expect(code).toBe(0);
    },
  );

  it.each(COMPILERS)(
    'TypeScript %s: a sample with a type error fails the check',
    async (_major, compiler) => {
      const dir = mkdtempSync(join(scratch, 'broken-'));
      writeFileSync(join(dir, 'broken.ts'), "export const port: number = '3000';\n");
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ extends: join(EXAMPLES, 'tsconfig.json'), files: ['broken.ts'] }),
      );
      const { code, output } = await tsc(compiler, join(dir, 'tsconfig.json'));
      expect(code).not.toBe(0);
      expect(output).toMatch(/broken\.ts.*TS2322/);
    },
  );
});
