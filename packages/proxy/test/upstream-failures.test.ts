import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { S2SPError } from '@s2sp/core';
import { describe, expect, it } from 'vitest';
import { createS2SPProxy } from '../src/index.js';
import { cliPath, httpClient, startProxy, TABLE_SERVER } from './support.js';

type Result = { content: { text: string }[]; isError?: boolean; _meta?: Record<string, unknown> };

describe('upstream failures', () => {
  it('turns a crash into a tool error, restarts the upstream with backoff, and logs it', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER, restartDelayMs: 50 });
    await using agent = await httpClient(running.listener.mcpUrl);
    const crashed = (await agent.client.callTool({ name: 'crash', arguments: {} })) as Result;
    expect(crashed.isError).toBe(true);
    expect(crashed._meta?.['s2sp/error-code']).toBe('unavailable');
    // The next call waits for the restart and succeeds.
    const after = (await agent.client.callTool({ name: 'plain', arguments: {} })) as Result;
    expect(after.content[0]?.text).toBe('hello world; args={}');
    expect(running.proxy.upstreamRestarts()).toBe(1);
    expect(
      running.logs.some((line) => line.includes('upstream: connection lost; restarting')),
    ).toBe(true);
    expect(
      running.logs.some(
        (line) => line.includes('upstream: restarted') && line.includes('restarts=1'),
      ),
    ).toBe(true);
  });

  it('times out an upstream that writes invalid JSON-RPC and never answers, and keeps working', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER, timeoutSeconds: 0.5 });
    await using agent = await httpClient(running.listener.mcpUrl);
    const started = Date.now();
    const result = (await agent.client.callTool({ name: 'garbage', arguments: {} })) as Result;
    expect(result._meta?.['s2sp/error-code']).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(running.logs.some((line) => line.includes('upstream: protocol error'))).toBe(true);
    const after = (await agent.client.callTool({ name: 'plain', arguments: {} })) as Result;
    expect(after.content[0]?.text).toBe('hello world; args={}');
  });

  it('rejects start() with the upstream exit and its standard error when it cannot start', async () => {
    const proxy = createS2SPProxy({
      upstream: { ...TABLE_SERVER, args: [...(TABLE_SERVER.args ?? []), '--fail-start'] },
      onUpstreamStderr: () => {},
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    const error = await proxy.start().catch((e: unknown) => e);
    await proxy.close();
    expect(S2SPError.isInstance(error) && error.code).toBe('unavailable');
    expect((error as Error).message).toContain('cannot open the database (as asked)');
  });

  it('makes the CLI exit 1 with a message when the upstream exits at start, and 2 on bad options', async () => {
    const run = async (args: string[]) => {
      const child = spawn(process.execPath, [cliPath(), ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const [code] = (await once(child, 'exit')) as [number];
      return { code, stderr };
    };
    const failed = await run([
      '--port',
      '0',
      '--',
      TABLE_SERVER.command,
      ...(TABLE_SERVER.args ?? []),
      '--fail-start',
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('s2sp-proxy: The upstream MCP server');
    expect(failed.stderr).toContain('cannot open the database (as asked)');
    const bad = await run(['--port', 'x', '--', 'node']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port');
  });

  it('reports an unreachable HTTP upstream at start', async () => {
    const proxy = createS2SPProxy({
      upstream: { kind: 'http', url: 'http://127.0.0.1:9/mcp' },
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    const error = await proxy.start().catch((e: unknown) => e);
    await proxy.close();
    expect(S2SPError.isInstance(error) && error.code).toBe('unavailable');
  });
});
