/**
 * The docs pages' TypeScript samples are type-checked by the repository's one sample checker,
 * `scripts/check-readme-examples.mjs` (run by `pnpm test` over every README and docs page). These
 * cases show that it reads a site page — a VitePress-labelled fence included — names the page and
 * the sample's line when a sample does not compile.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './build-site.js';

const run = promisify(execFile);

async function check(...pages: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [join(ROOT, 'scripts/check-readme-examples.mjs'), ...pages],
      { cwd: ROOT },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, output: stdout + stderr };
  }
}

describe('the sample checker on docs pages', () => {
  it('type-checks a page, naming the page and line of a sample that does not compile', async () => {
    const { code, output } = await check('docs/test/__fixtures__/broken-sample.md');
    expect(code).toBe(1);
    // `ttlSeconds: 'ten minutes'`: line 8 of the page, column 27.
    expect(output).toMatch(/docs\/test\/__fixtures__\/broken-sample\.md:8:27 TS2322/);
  });
});
