// Figures 23.6–23.9: the proxy as a shared gateway, continued — one upstream answer
// too large for the proxy fails only its own call and costs bounded memory, sessions see only
// their own notifications, and a filter's work is bounded.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { S2SPProxyOptions } from '@s2sp/proxy';
import { connectMcpClient, startHttpServer, type TestMcpClient } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { startQuietProxy } from './support/proxy.js';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const PROXY_BIN = path('../../packages/proxy/bin/s2sp-proxy.js');
const TABLE_SERVER = path('../../packages/proxy/test/fixtures/table-server.mjs');
const NOTIFY_SERVER = path('../../packages/proxy/test/fixtures/notify-server.mjs');
const MiB = 1024 * 1024;

const startProxy = (options: Partial<S2SPProxyOptions> = {}) =>
  startQuietProxy({
    upstream: { kind: 'stdio', command: process.execPath, args: [TABLE_SERVER] },
    ...options,
  });

type ToolResult = Awaited<ReturnType<TestMcpClient['call']>>;
const codeOf = (result: ToolResult) =>
  (result as { _meta?: Record<string, unknown> })._meta?.['s2sp/error-code'];

/**
 * A minimal Streamable HTTP MCP server whose one tool answers with a JSON body of `bytes`,
 * written as it is sent (64 KiB at a time, waiting for the socket): nothing of it is held here.
 */
async function streamingUpstream(bytes: number) {
  let answersStarted = 0;
  let bytesSent = 0;
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const json = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = await startHttpServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
      return;
    }
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const message = JSON.parse(Buffer.concat(parts).toString('utf8')) as {
      id?: number;
      method: string;
    };
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const result = (value: unknown) => json(res, { jsonrpc: '2.0', id: message.id, result: value });
    if (message.method === 'initialize') {
      return result({
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'streaming-upstream', version: '1.0.0' },
      });
    }
    if (message.method === 'tools/list') {
      return result({
        tools: [
          { name: 'huge', description: 'A very long text.', inputSchema: { type: 'object' } },
        ],
      });
    }
    if (message.method !== 'tools/call') return result({});
    answersStarted++;
    res.writeHead(200, { 'content-type': 'application/json' });
    const write = (data: Buffer | string) =>
      res.write(data) ? Promise.resolve(true) : waitDrain(res);
    await write(`{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`);
    let left = bytes;
    while (left > 0 && !res.destroyed) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      bytesSent += piece.length;
      if (!(await write(piece))) return;
    }
    if (!res.destroyed) res.end('"}]}}');
  });
  return Object.assign(server, {
    answersStarted: () => answersStarted,
    bytesSent: () => bytesSent,
  });
}

function waitDrain(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/** The `s2sp-proxy` program in a child process, so that its own peak memory can be read. */
async function proxyProcess(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [PROXY_BIN, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const mcpUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 20 s:\n${stderr}`)), 20_000);
    child.stderr?.on('data', () => {
      const found = /ready mcp=(\S+)/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1] as string);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}):\n${stderr}`)));
  });
  /** Peak resident set size of the proxy process so far (VmHWM), in MiB. */
  const peakMiB = () => {
    const found = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    return Number(found?.[1] ?? Number.NaN) / 1024;
  };
  return {
    mcpUrl,
    peakMiB,
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('figure 23: the proxy as a gateway (continued)', () => {
  it('23.6 an upstream answer over the byte cap fails only its own call; no restart', async () => {
    await using edge = await startProxy({ maxUpstreamResultBytes: 64 * 1024, detectTables: false });
    await using agent = await connectMcpClient(edge.listener.mcpUrl);
    // A call in flight while the oversized answer arrives must not be hurt by it.
    const slow = agent.call('slow', { steps: 5, ms: 60 });
    const big = await agent.call('big', { count: 5000 });
    const small = await agent.call('big', { count: 10 });
    const during = await slow;
    const restarts = edge.proxy.upstreamRestarts();
    const others = [small, during].filter((result) => !result.isError).length;
    recordFigure({
      id: '23.6',
      title:
        'Proxy with maxUpstreamResultBytes 64 KiB, stdio fixture: a 5,000-row answer (≈ 330 KiB) — its caller gets / a call in flight at the same time and one after it answered / upstream restarts',
      value: `${codeOf(big)} / ${others}/2 / ${restarts}`,
      target: 'payload_too_large / 2/2 / 0',
      met: codeOf(big) === 'payload_too_large' && others === 2 && restarts === 0,
    });
    expect([codeOf(big), others, restarts]).toEqual(['payload_too_large', 2, 0]);
  });

  it('23.7 twelve concurrent 200 MB upstream answers: the proxy’s peak memory', async () => {
    const size = 200 * 1000 * 1000;
    await using upstream = await streamingUpstream(size);
    await using proxy = await proxyProcess([
      '--port',
      '0',
      '--upstream-url',
      `${upstream.url}/mcp`,
      '--max-calls-per-client',
      '12',
      '--no-detect',
      '--log-level',
      'warn',
    ]);
    await using agent = await connectMcpClient(proxy.mcpUrl);
    const before = proxy.peakMiB();
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 12 }, () => agent.call('huge')));
    const ms = performance.now() - started;
    const peak = proxy.peakMiB();
    const refused = results.filter((r) => codeOf(r) === 'payload_too_large').length;
    const after = await agent.call('huge');
    const sentMiB = upstream.bytesSent() / MiB;
    recordFigure({
      id: '23.7',
      title: `Proxy program (default cap 64 MiB) before an HTTP upstream that streams a 200 MB answer to each of 12 concurrent calls: refused with payload_too_large / the proxy process's peak RSS (VmHWM; ${Math.round(before)} MiB before the calls; the issue measured 5.3 GB without the cap) / MiB the upstream got to send / time for the 12`,
      value: `${refused}/12 / ${Math.round(peak)} MiB / ${Math.round(sentMiB)} MiB / ${Math.round(ms)} ms`,
      target: '12/12 / < 1,200 MiB (12 × 64 MiB held at most, plus the process)',
      met: refused === 12 && peak < 1200,
    });
    expect(refused).toBe(12);
    expect(codeOf(after)).toBe('payload_too_large');
    expect(upstream.answersStarted()).toBe(13);
    expect(peak).toBeLessThan(1200);
  });

  it('23.8 sessions see only their own log messages, at their own levels', async () => {
    await using edge = await startProxy({
      upstream: { kind: 'stdio', command: process.execPath, args: [NOTIFY_SERVER] },
      detectTables: false,
    });
    const watch = async () => {
      const agent = await connectMcpClient(edge.listener.mcpUrl);
      const logs: string[] = [];
      agent.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logs.push(String(n.params.data));
      });
      const end = async () => {
        await (agent.client.transport as StreamableHTTPClientTransport | undefined)
          ?.terminateSession()
          .catch(() => {});
        await agent.close();
      };
      return { agent, logs, [Symbol.asyncDispose]: end };
    };
    const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
    await using a = await watch();
    await using b = await watch();
    // A's call logs at debug, info, warning and error.
    await a.agent.call('log', { tag: 'A' });
    await settle();
    const first = `${a.logs.length} / ${b.logs.length}`;
    // Per-session levels: A asks error, B debug.
    await a.agent.client.setLoggingLevel('error');
    await b.agent.client.setLoggingLevel('debug');
    a.logs.length = 0;
    await a.agent.call('log', { tag: 'A' });
    await b.agent.call('log', { tag: 'B' });
    await settle();
    const levels = `${a.logs.length} / ${b.logs.filter((data) => data.startsWith('B:')).length}`;
    // Messages with no call in flight, on A's own upstream session: A's, at A's level.
    a.logs.length = 0;
    b.logs.length = 0;
    await a.agent.call('ambient', { tag: 'N' });
    await settle();
    const ambient = `${a.logs.length} / ${b.logs.length}`;
    recordFigure({
      id: '23.8',
      title:
        'Two MCP sessions on one proxy (stdio notify-server fixture, an upstream session each): the 4 log messages of session A’s call — received by A / by B; A asks level error, B debug, each calls — messages A gets / B gets of its own 4; the 8 messages A’s upstream session sends with no call in flight — received by A (at its level error: 4) / by B (before: every message went to every session, and the last setLevel set everyone’s level; with one shared upstream session, such messages reached no session)',
      value: `${first}; ${levels}; ${ambient}`,
      target: '4 / 0; 1 / 4; 4 / 0',
      met: first === '4 / 0' && levels === '1 / 4' && ambient === '4 / 0',
    });
    expect([first, levels, ambient]).toEqual(['4 / 0', '1 / 4', '4 / 0']);
  });

  it('23.9 a filter’s work is bounded: 500 long in values on 100,000 rows, and past the bound', async () => {
    await using edge = await startProxy({ tableTools: [{ name: 'big' }], maxCallsPerClient: 8 });
    await using agent = await connectMcpClient(edge.listener.mcpUrl);
    // 500 values of ~400 characters; the table's notes are "row <i> of 100000".
    const values = Array.from({ length: 500 }, (_, i) => `${'v'.repeat(400)} ${i}`);
    values[0] = 'ROW 7 OF 100000';
    // Sync mode: the selected rows come back inline, so nothing is stored and no store quota
    // enters the figure.
    const probe = {
      count: 100_000,
      abstract_domains: 'city,notes',
      mode: 'sync',
      filter: { notes: values },
    };
    const timed = async <T>(run: () => Promise<T>) => {
      const started = performance.now();
      const value = await run();
      return { value, ms: performance.now() - started };
    };
    // Warm: the tool list learned, the upstream and the proxy past their first call.
    await agent.call('big', { count: 10, abstract_domains: 'city', mode: 'sync' });
    const one = await timed(() => agent.call('big', probe));
    const batch = await timed(() =>
      Promise.all(Array.from({ length: 8 }, () => agent.call('big', probe))),
    );
    const matched = (result: ToolResult) =>
      (result.structuredContent as { matched_rows?: number } | undefined)?.matched_rows;
    // Every operator on each of the 4 columns: 28 conditions × 100,000 rows > the bound.
    const all = { eq: 1, in: [1, 2], contains: 'x', gt: 0, gte: 0, lt: 9, lte: 9 };
    const over = await timed(() =>
      agent.call('big', {
        count: 100_000,
        abstract_domains: 'id,city,population,notes',
        mode: 'sync',
        filter: { id: all, city: all, population: all, notes: all },
      }),
    );
    const upstreamOnly = await timed(() =>
      agent.call('big', {
        count: 100_000,
        abstract_domains: 'city,notes',
        mode: 'sync',
        filter: { notes: 'row 7 of 100000' },
      }),
    );
    const batchOk = batch.value.filter((r) => matched(r) === 1).length;
    recordFigure({
      id: '23.9',
      title: `Proxy, stdio fixture's 100,000-row table: a filter with 500 in values of ~400 characters (one matches) — rows matched / time of one call / of a batch of 8 concurrent (the issue: ~5 s a call, 44 s a batch); 28 conditions (every operator on the 4 columns: 2.8 M comparisons, bound 2 M) — answer / its time; the same call with a one-condition filter (the upstream's and the proxy's own share)`,
      value: `${matched(one.value)} / ${Math.round(one.ms)} ms / ${batchOk}/8 in ${Math.round(batch.ms)} ms; ${codeOf(over.value)} / ${Math.round(over.ms)} ms; ${Math.round(upstreamOnly.ms)} ms`,
      target: '1 / < 5,000 ms / 8/8 in < 44,000 ms; payload_too_large',
      met:
        matched(one.value) === 1 &&
        one.ms < 5000 &&
        batchOk === 8 &&
        batch.ms < 44_000 &&
        codeOf(over.value) === 'payload_too_large',
    });
    expect(matched(one.value)).toBe(1);
    expect(batchOk).toBe(8);
    expect(codeOf(over.value)).toBe('payload_too_large');
  });
});
