/**
 * Builds the documentation site as `pnpm docs:build` does — TypeDoc's API pages, then VitePress —
 * into a directory of the caller's, with the programs of this package run by Node directly.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const DOCS = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = join(DOCS, '..');

const run = promisify(execFile);
const require = createRequire(import.meta.url);
/** A package's program, as its `bin` names it. */
function bin(pkg: string, name: string): string {
  const manifest = require(`${pkg}/package.json`) as { bin: Record<string, string> | string };
  const path = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[name];
  if (!path) throw new Error(`${pkg} has no program ${name}`);
  return join(dirname(require.resolve(`${pkg}/package.json`)), path);
}

/** Builds the site into `outDir` and returns how long each step took, in ms. */
export async function buildSite(outDir: string): Promise<{ apiMs: number; siteMs: number }> {
  const options = {
    cwd: DOCS,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, DOCS_BASE: '/' },
  };
  const started = performance.now();
  await run(
    process.execPath,
    [bin('typedoc', 'typedoc'), '--options', 'typedoc.config.mjs'],
    options,
  );
  const apiDone = performance.now();
  await run(
    process.execPath,
    [bin('vitepress', 'vitepress'), 'build', '--outDir', outDir],
    options,
  );
  return { apiMs: apiDone - started, siteMs: performance.now() - apiDone };
}
