import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const distMain = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('dist/main.js', () => {
  it('prints its usage with --help and exits 0', () => {
    if (!existsSync(distMain)) throw new Error('run `pnpm build` first (pnpm test does)');
    const run = spawnSync(process.execPath, [distMain, '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: s2sp-chart-consumer \[--stdio\] \[--help\]/);
    expect(run.stdout).toContain('S2SP_ALLOWED_ORIGINS');
  });

  it('exits 1 naming an unknown option', () => {
    const run = spawnSync(process.execPath, [distMain, '--verbose'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      'chart-consumer: --verbose: unknown option. The options are --stdio and --help.\n',
    );
  });
});
