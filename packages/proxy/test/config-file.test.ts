/**
 * The CLI with a `--config` path that is no settings file, and with an empty credential list: it
 * refuses at start with status 2 and a message naming the option, instead of waiting forever on a
 * FIFO, reading a device without end, quoting a secret the path leads to, or starting without
 * the authentication its operator meant to give it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliPath } from './support.js';

/** The CLI's exit status and standard error, killed if it has not stopped by itself. */
async function start(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [cliPath(), '--port', '0', ...args, '--', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A proxy stuck on a FIFO or a device would reach this deadline and be killed (code null).
  const deadline = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(deadline);
  return { code, stderr };
}

describe('s2sp-proxy --config', () => {
  const dir = mkdtempSync(join(tmpdir(), 's2sp-config-cli-'));

  it('exits 2 at start, naming the option, for a FIFO and for /dev/zero', async () => {
    const fifo = join(dir, 'settings.yaml');
    execFileSync('mkfifo', [fifo]);
    for (const path of [fifo, '/dev/zero']) {
      const { code, stderr } = await start(['--config', path]);
      expect(code).toBe(2);
      expect(stderr).toContain(`--config: ${path} is a`);
      expect(stderr).toContain('not a regular file');
    }
  }, 60_000);

  it('exits 2 without quoting the file when the path is a link to a secret', async () => {
    const secret = 'sk-fake-secret-0123456789abcdef';
    for (const [name, text] of [
      ['key', `${secret}: x\n`],
      ['alias', `*${secret}\n`],
    ]) {
      const file = join(dir, `${name}.secret`);
      writeFileSync(file, text as string);
      const link = join(dir, `${name}.yaml`);
      symlinkSync(file, link);
      const { code, stderr } = await start(['--config', link]);
      expect(code).toBe(2);
      expect(stderr).toContain(link);
      expect(stderr).not.toContain('0123456789');
    }
  }, 60_000);
});

describe('s2sp-proxy with S2SP_AUTH_TOKENS set but empty', () => {
  it.each([[''], [','], [' ']])(
    'exits 2 at start for %j, naming the variable',
    async (value) => {
      const { code, stderr } = await start([], { S2SP_AUTH_TOKENS: value });
      expect(code).toBe(2);
      expect(stderr).toContain('S2SP_AUTH_TOKENS: ');
    },
    30_000,
  );
});
