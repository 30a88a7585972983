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
    expect(run.stdout).toMatch(/^Usage: s2sp-sql-consumer \[--stdio\] \[--help\]/);
    expect(run.stdout).toContain('SQL_TIMEOUT_MS');
  });

  it('exits 1 naming an unknown option or a bad setting', () => {
    const run = spawnSync(process.execPath, [distMain, '--verbose'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      'sql-consumer: --verbose: unknown option. The options are --stdio and --help.\n',
    );
    const bad = spawnSync(process.execPath, [distMain], {
      encoding: 'utf8',
      env: { ...process.env, SQL_THREADS: '0' },
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^sql-consumer: SQL_THREADS/);
  });

  it('serves /s2sp/health and /mcp on PORT', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [distMain], {
      env: {
        ...process.env,
        PORT: '0',
        LOG_LEVEL: 'info',
        S2SP_ALLOWED_ORIGINS: 'http://127.0.0.1:1',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      let log = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mcp line:\n${log}`)), 15_000);
        child.stderr?.on('data', (chunk: Buffer) => {
          log += chunk.toString();
          const match = /(http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(log);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
      });
      const health = await fetch(`${url}/s2sp/health`);
      expect(await health.json()).toEqual({ status: 'ok' });
    } finally {
      child.kill('SIGTERM');
    }
  });
});
