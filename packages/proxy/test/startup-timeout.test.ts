import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { StdioUpstream } from '../src/index.js';
import { cliPath, httpClient, startCli, startProxy } from './support.js';

const SCRIPT = fileURLToPath(new URL('./fixtures/slow-start-server.mjs', import.meta.url));

/** The slow-starting fixture (a launcher and its server), recording their pids in a new file. */
function slowUpstream(args: string[]): { upstream: StdioUpstream; pids: () => number[] } {
  const file = join(mkdtempSync(join(tmpdir(), 's2sp-slow-')), 'pids');
  return {
    upstream: { kind: 'stdio', command: process.execPath, args: [SCRIPT, '--pids', file, ...args] },
    pids: () =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => Number(line.split(' ')[1])),
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Waits for the processes to be reaped (an orphan's exit is collected by init, not at once). */
async function survivors(pids: number[]): Promise<number[]> {
  for (let tries = 0; tries < 40 && pids.some(alive); tries++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return pids.filter(alive);
}

type Result = { content: { text: string }[]; isError?: boolean; _meta?: Record<string, unknown> };

describe('upstream start-up limit', () => {
  it('exits 1 naming --startup-timeout for a person, with no process of the upstream left', async () => {
    const slow = slowUpstream(['--sleep-ms', '600000']);
    const child = spawn(
      process.execPath,
      [
        cliPath(),
        '--port',
        '0',
        '--startup-timeout',
        '5',
        '--',
        slow.upstream.command,
        ...(slow.upstream.args ?? []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(stderr).toContain('--startup-timeout');
    // The launcher and the server it started (npx and the package's binary): both stopped.
    expect(slow.pids()).toHaveLength(2);
    expect(await survivors(slow.pids())).toEqual([]);
  });

  it('waits past --timeout for an upstream slower to start than one request may take', async () => {
    const slow = slowUpstream(['--sleep-ms', '1500']);
    const cli = await startCli(slow.upstream, {
      args: ['--timeout', '1', '--startup-timeout', '60'],
    });
    try {
      await using agent = await httpClient(cli.mcpUrl);
      const result = (await agent.client.callTool({ name: 'ping', arguments: {} })) as Result;
      expect(result.content[0]?.text).toBe('pong');
    } finally {
      await cli.stop();
    }
  });

  it("bounds a client's own upstream session by it: the call fails unavailable, its processes stopped", async () => {
    // The proxy's era probe and first session start at once; the client's own (the third
    // server) is slow.
    const slow = slowUpstream(['--sleep-ms', '600000', '--sleep-from', '3']);
    await using running = await startProxy({ upstream: slow.upstream, startupTimeoutSeconds: 5 });
    await using agent = await httpClient(running.listener.mcpUrl);
    const result = (await agent.client.callTool({ name: 'ping', arguments: {} })) as Result;
    expect(result.isError).toBe(true);
    expect(result._meta?.['s2sp/error-code']).toBe('unavailable');
    // Three launchers and servers (probe, start, client): the client's pair was stopped.
    const pids = slow.pids();
    expect(pids).toHaveLength(6);
    expect(await survivors(pids.slice(4))).toEqual([]);
  });
});
