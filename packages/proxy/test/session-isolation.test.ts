/**
 * Sessions of one proxy cannot see each other's traffic: a log message the upstream
 * sends about a call reaches that call's session only, log levels are per session, progress goes
 * to the caller only. With an upstream session per client (the default), what the upstream sends
 * on a session belongs to its client by construction, so a message that belongs to no call
 * reaches that client; with `sharedUpstream`, it reaches no session (the operator's log). Two official SDK
 * clients on the proxy's Streamable HTTP endpoint; the fixture upstream
 * (test/fixtures/notify-server.mjs) on Streamable HTTP (where the proxy knows which request a
 * notification came with) and on stdio (where it does not).
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StdioUpstream, UpstreamTarget } from '../src/index.js';
import {
  httpClient,
  httpFixture,
  type RunningProxy,
  startProxy,
  type TestClient,
} from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/notify-server.mjs', import.meta.url));
const STDIO: StdioUpstream = { kind: 'stdio', command: process.execPath, args: [FIXTURE] };

interface Watched extends TestClient {
  /** Every log message's `data` this client received. */
  readonly logs: string[];
  /** Every progress notification it received (its own calls' and any other). */
  readonly progress: number[];
}

async function watched(running: RunningProxy): Promise<Watched> {
  const client = await httpClient(running.listener.mcpUrl);
  const logs: string[] = [];
  const progress: number[] = [];
  client.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(String(n.params.data));
  });
  // Replaces the SDK's own handler: every progress notification that reaches this session.
  client.client.setNotificationHandler(ProgressNotificationSchema, (n) => {
    progress.push(n.params.progress);
  });
  // Ends the MCP session (DELETE), not only the connection: the proxy then forgets its level.
  const end = async () => {
    await (client.client.transport as StreamableHTTPClientTransport | undefined)
      ?.terminateSession()
      .catch(() => {});
    await client.client.close();
  };
  return { client: client.client, logs, progress, [Symbol.asyncDispose]: end };
}

const call = (who: Watched, name: string, args: Record<string, unknown> = {}) =>
  who.client.callTool({ name, arguments: args });

const levelsSet = async (who: Watched) => {
  const result = (await call(who, 'levels')) as { content: { text: string }[] };
  return JSON.parse(result.content[0]?.text ?? '[]') as string[];
};

/** Lets notifications in flight arrive (each test also waits for a positive one first). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

const ALL = ['debug', 'info', 'warning', 'error'];
const tagged = (tag: string, levels = ALL) => levels.map((level) => `${tag}:${level}`);

describe.each([
  ['Streamable HTTP', 'http', 'per client'],
  ['stdio', 'stdio', 'per client'],
  ['Streamable HTTP', 'http', 'shared'],
  ['stdio', 'stdio', 'shared'],
] as const)('session isolation, upstream on %s, upstream sessions %s', (_label, kind, mode) => {
  const shared = mode === 'shared';
  let upstream: UpstreamTarget = STDIO;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    if (kind === 'stdio') return;
    const started = await httpFixture(FIXTURE);
    child = started.child;
    upstream = { kind: 'http', url: started.url };
  });
  afterAll(() => {
    child?.kill();
  });
  let running: RunningProxy | undefined;
  const proxy = async () => {
    running ??= await startProxy({ upstream, detectTables: false, sharedUpstream: shared });
    return running;
  };
  afterAll(async () => {
    await running?.proxy.close();
  });

  it('a log message caused by A’s call reaches A only; progress reaches the caller only', async () => {
    const edge = await proxy();
    await using a = await watched(edge);
    await using b = await watched(edge);
    await call(a, 'log', { tag: 'A' });
    await expect.poll(() => a.logs.length).toBe(4);
    const onprogress: number[] = [];
    await a.client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => onprogress.push(p.progress),
    });
    await settle();
    expect(a.logs).toEqual(tagged('A'));
    expect(b.logs).toEqual([]);
    // A's own handler was replaced in `watched`, so A's progress shows in a.progress.
    expect(a.progress).toEqual([1, 2, 3]);
    expect(b.progress).toEqual([]);
  });

  it('per-session levels: A asks error, B asks debug — each gets what it asked for', async () => {
    const edge = await proxy();
    await using a = await watched(edge);
    await using b = await watched(edge);
    await a.client.setLoggingLevel('error');
    await b.client.setLoggingLevel('debug');
    await call(a, 'log', { tag: 'A' });
    await call(b, 'log', { tag: 'B' });
    await expect.poll(() => b.logs.length).toBe(4);
    await settle();
    expect(a.logs).toEqual(['A:error']);
    expect(b.logs).toEqual(tagged('B'));
    if (!shared) {
      // Each client's upstream session runs at the level its client asked for.
      expect(await levelsSet(a)).toEqual(['error']);
      expect(await levelsSet(b)).toEqual(['debug']);
      return;
    }
    // The upstream runs at the most verbose level an open session needs…
    expect((await levelsSet(a)).at(-1)).toBe('debug');
    // …and when B leaves, at A's.
    await (b.client.transport as StreamableHTTPClientTransport).terminateSession();
    await expect.poll(async () => (await levelsSet(a)).at(-1)).toBe('error');
    await call(a, 'log', { tag: 'A2' });
    await expect.poll(() => a.logs.length).toBe(2);
    expect(a.logs).toEqual(['A:error', 'A2:error']);
  });

  it('a message that belongs to no call reaches its session’s client, or (shared) no session', async () => {
    const edge = await proxy();
    await using a = await watched(edge);
    await using b = await watched(edge);
    await a.client.setLoggingLevel('debug');
    await call(a, 'ambient', { tag: 'N' });
    if (!shared) {
      await expect.poll(() => a.logs.length).toBe(8);
      expect(a.logs.every((data) => data.startsWith('N'))).toBe(true);
      expect(b.logs).toEqual([]);
      return;
    }
    await expect
      .poll(() => edge.logs.filter((line) => line.includes('no session it belongs to')).length)
      .toBeGreaterThanOrEqual(8);
    expect(a.logs).toEqual([]);
    expect(b.logs).toEqual([]);
    expect(edge.logs.join('\n')).toMatch(
      /no session it belongs to.*notifications\/message.*emergency/,
    );
  });
});

describe('session isolation: two calls in flight at once', () => {
  it('HTTP: each session gets its own call’s messages, exactly', async () => {
    const started = await httpFixture(FIXTURE);
    try {
      await using edge = await startProxy({
        upstream: { kind: 'http', url: started.url },
        detectTables: false,
        sharedUpstream: true,
      });
      await using a = await watched(edge);
      await using b = await watched(edge);
      await Promise.all([
        call(a, 'log', { tag: 'A', ms: 100 }),
        call(b, 'log', { tag: 'B', ms: 100 }),
        call(a, 'log', { tag: 'A2', ms: 50 }),
      ]);
      await expect.poll(() => a.logs.length + b.logs.length).toBe(12);
      expect([...a.logs].sort()).toEqual([...tagged('A'), ...tagged('A2')].sort());
      expect(b.logs).toEqual(tagged('B'));
    } finally {
      started.child.kill();
    }
  });

  it('stdio, a session per client: each session gets its own call’s messages, exactly', async () => {
    await using edge = await startProxy({ upstream: STDIO, detectTables: false });
    await using a = await watched(edge);
    await using b = await watched(edge);
    await Promise.all([
      call(a, 'log', { tag: 'A', ms: 100 }),
      call(b, 'log', { tag: 'B', ms: 100 }),
    ]);
    await expect.poll(() => a.logs.length + b.logs.length).toBe(8);
    expect(a.logs).toEqual(tagged('A'));
    expect(b.logs).toEqual(tagged('B'));
  });

  it('stdio, shared: messages that cannot be told apart reach neither session', async () => {
    await using edge = await startProxy({
      upstream: STDIO,
      detectTables: false,
      sharedUpstream: true,
    });
    await using a = await watched(edge);
    await using b = await watched(edge);
    const dropped = () =>
      edge.logs.filter((line) => line.includes('no session it belongs to')).length;
    await Promise.all([
      call(a, 'log', { tag: 'A', ms: 100 }),
      call(b, 'log', { tag: 'B', ms: 100 }),
    ]);
    await expect.poll(() => dropped() + a.logs.length + b.logs.length).toBe(8);
    // The first call to log did so while both were in flight: its messages reached nobody. The
    // other may have been alone by then (then it is the one caller, and gets its own).
    expect(dropped()).toBeGreaterThanOrEqual(4);
    expect(a.logs.filter((data) => !data.startsWith('A:'))).toEqual([]);
    expect(b.logs.filter((data) => !data.startsWith('B:'))).toEqual([]);
  });
});
