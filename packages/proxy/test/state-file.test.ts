/**
 * The CLI with a `--state` path it cannot use as a file: it refuses at start, with status 2 and
 * a message naming the option, instead of waiting forever on a FIFO (SIGTERM could not stop it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliPath, TABLE_SERVER } from './support.js';

describe('s2sp-proxy --state', () => {
  it('exits 2 at start, naming the option, when the path is a FIFO', async () => {
    const fifo = join(mkdtempSync(join(tmpdir(), 's2sp-state-')), 'state.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const child = spawn(
      process.execPath,
      [
        cliPath(),
        '--port',
        '0',
        '--state',
        fifo,
        '--',
        TABLE_SERVER.command,
        ...(TABLE_SERVER.args ?? []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // It never listens: a proxy stuck on the FIFO would reach this deadline and be killed.
    const deadline = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(deadline);
    expect(code).toBe(2);
    expect(stderr).toContain(`--state: ${fifo} is a FIFO, not a regular file`);
    expect(stderr).not.toContain('ready mcp=');
  }, 30_000);
});
