// Figures 37.x: the fourth attack pass (issue 53) — one client, one upstream session. Each probe
// records what it saw before asserting, so the same file run on an older commit records that
// commit's figure (RELIABILITY.md §37's "before" column was produced that way).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectEraClient, MODERN_REVISION } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { startQuietProxy } from './support/proxy.js';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const PROXY_BIN = path('../../packages/proxy/bin/s2sp-proxy.js');
// The proxy's test fixtures and agents; PROBE_PROXY_TESTS names another checkout's
// packages/proxy/test, for a run on a commit whose own fixture has no remember/recall/sample_later
// tools and no agents.ts (the "before" side of §37).
const PROXY_TESTS = process.env.PROBE_PROXY_TESTS ?? path('../../packages/proxy/test');
const RELAY = join(PROXY_TESTS, 'fixtures/relay-server.mjs');
const TABLE_SERVER = path('../../packages/proxy/test/fixtures/table-server.mjs');
const ALICE = 'reliability-alice-0123456789abcdef';
const BOB = 'reliability-bob-0123456789abcdefgh';

/** An SDK v1 client with bearer `token` that answers sampling as `name` and keeps the prompts. */
async function sampler(mcpUrl: string, name: string, token: string) {
  const prompts: string[] = [];
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    const first = request.params.messages[0]?.content as { text?: string } | undefined;
    prompts.push(first?.text ?? '');
    return {
      model: name,
      role: 'assistant' as const,
      content: { type: 'text' as const, text: `${name} says hi` },
    };
  });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name: tool, arguments: args })) as {
      content: { text?: string }[];
    };
    return JSON.parse(result.content[0]?.text ?? 'null') as Record<string, unknown>;
  };
  return {
    prompts,
    call,
    sessionId: () => transport.sessionId,
    [Symbol.asyncDispose]: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

const relayProxy = () =>
  startQuietProxy({
    upstream: { kind: 'stdio', command: process.execPath, args: [RELAY] },
    auth: { bearerTokens: [ALICE, BOB] },
  });

/** Runs the CLI with `args` and `env` until it exits or says `ready`, at most `ms`. */
async function runCli(args: string[], env: Record<string, string | undefined>, ms = 10_000) {
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [PROXY_BIN, '--port', '0', ...args, '--', process.execPath, TABLE_SERVER],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, S2SP_AUTH_TOKENS: undefined, ...env },
    },
  );
  let stderr = '';
  let peakKiB = 0;
  const sampling = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      peakKiB = Math.max(peakKiB, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // gone already
    }
  }, 20);
  const outcome = await new Promise<{ exit?: number | null; ready?: boolean; timedOut?: boolean }>(
    (resolve) => {
      const timer = setTimeout(() => resolve({ timedOut: true }), ms);
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/ready mcp=/.test(stderr)) {
          clearTimeout(timer);
          resolve({ ready: true });
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve({ exit: code });
      });
    },
  );
  clearInterval(sampling);
  const elapsed = performance.now() - started;
  if (child.exitCode === null) {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  return { ...outcome, stderr, elapsed, peakMiB: peakKiB / 1024 };
}

const describeOutcome = (o: Awaited<ReturnType<typeof runCli>>) =>
  o.ready
    ? 'started (listening)'
    : o.timedOut
      ? 'still running, not listening (killed)'
      : `exit ${o.exit}`;

describe('fourth attack pass: one client, one upstream session (issue 53)', () => {
  it('37.1 row 1: B does not see the upstream state A left (stateful stdio upstream)', async () => {
    await using proxy = await relayProxy();
    await using a = await sampler(proxy.listener.mcpUrl, 'alice', ALICE);
    await using b = await sampler(proxy.listener.mcpUrl, 'bob', BOB);
    await a.call('remember', { value: 'alice’s connection' });
    const seen = await b.call('recall');
    const leaked = seen.remembered === 'alice’s connection';
    recordFigure({
      id: '37.1',
      title:
        'Two clients (bearer tokens A, B) of one proxy before the stateful relay fixture on stdio: A calls remember, B calls recall — B sees A’s state',
      value: leaked ? 'yes' : 'no',
      target: 'no',
      met: !leaked,
    });
    expect(leaked).toBe(false);
  });

  it('37.2 row 2: what the upstream asks on A’s session never reaches B', async () => {
    await using proxy = await relayProxy();
    await using a = await sampler(proxy.listener.mcpUrl, 'alice', ALICE);
    await using b = await sampler(proxy.listener.mcpUrl, 'bob', BOB);
    const trials = 5;
    for (let i = 0; i < trials; i++) {
      // A's call is answered at once; its upstream asks for a sample 100 ms later (a detached
      // task), while B has a call in flight and A has none.
      await a.call('sample_later', { prompt: `alice-secret-${i}`, ms: 100 });
      await b.call('wait', { ms: 600 });
      for (let j = 0; j < 100; j++) {
        if ((await a.call('later')).pending !== true) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const wrong = b.prompts.filter((prompt) => prompt.startsWith('alice-secret')).length;
    recordFigure({
      id: '37.2',
      title: `A's upstream sends sampling/createMessage 100 ms after A's call was answered, while B has a call in flight (${trials} trials, SDK v1 clients, stdio upstream): A's private prompts B received / A received`,
      value: `${wrong} / ${a.prompts.length}`,
      target: `0 / ${trials}`,
      met: wrong === 0 && a.prompts.length === trials,
    });
    expect(wrong).toBe(0);
  });

  it('37.3 row 3: B’s token with A’s mcp-session-id is refused', async () => {
    await using proxy = await relayProxy();
    await using a = await sampler(proxy.listener.mcpUrl, 'alice', ALICE);
    await a.call('remember', { value: 'alice’s connection' });
    const response = await fetch(proxy.listener.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        'mcp-session-id': a.sessionId() ?? '',
        authorization: `Bearer ${BOB}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'recall', arguments: {} },
      }),
    });
    const body = await response.text();
    const gotState = body.includes('alice’s connection') || body.includes('alice\\u2019s');
    recordFigure({
      id: '37.3',
      title:
        'B’s bearer token with A’s mcp-session-id, tools/call recall: HTTP status / A’s state in the answer',
      value: `${response.status} / ${gotState ? 'yes' : 'no'}`,
      target: '404 / no',
      met: response.status === 404 && !gotState,
    });
    expect(gotState).toBe(false);
  });

  it('37.4 row 4: one client cannot take every subscriptions/listen slot', async () => {
    await using proxy = await startQuietProxy({
      upstream: { kind: 'stdio', command: process.execPath, args: [TABLE_SERVER] },
      auth: { bearerTokens: [ALICE, BOB] },
    });
    const connect = async (token: string) =>
      (
        await connectEraClient(
          proxy.listener.mcpUrl,
          { sdk: 2, era: MODERN_REVISION },
          { authorization: `Bearer ${token}` },
        )
      ).client as unknown as {
        listen: (filter: object) => Promise<{ close?: () => Promise<void> }>;
        close: () => Promise<void>;
      };
    const a = await connect(ALICE);
    const b = await connect(BOB);
    try {
      let taken = 0;
      for (; taken < 1_100; taken++) {
        try {
          await a.listen({ toolsListChanged: true });
        } catch {
          break;
        }
      }
      let other = 'ok';
      try {
        await b.listen({ toolsListChanged: true });
      } catch (error) {
        other = String((error as { code?: unknown }).code);
      }
      recordFigure({
        id: '37.4',
        title:
          '2026-07-28 subscriptions/listen streams one client (token A) opens before a refusal (default settings, server-wide cap 1,024) / another client’s listen then',
        value: `${taken} / ${other}`,
        target: '≤ 8 (per client, default) / ok',
        met: taken <= 8 && other === 'ok',
      });
      expect(other).toBe('ok');
    } finally {
      await a.close().catch(() => {});
      await b.close().catch(() => {});
    }
  });

  it('37.7 row 7: an empty credential list is refused at start, from env and flag', async () => {
    const outcomes: string[] = [];
    for (const value of ['', ',', ' ']) {
      const run = await runCli([], { S2SP_AUTH_TOKENS: value });
      outcomes.push(`S2SP_AUTH_TOKENS=${JSON.stringify(value)}: ${describeOutcome(run)}`);
    }
    const flag = await runCli(['--auth-token', ''], {});
    outcomes.push(`--auth-token "": ${describeOutcome(flag)}`);
    recordFigure({
      id: '37.7',
      title: 's2sp-proxy CLI started with an empty credential list',
      value: outcomes.join('; '),
      target: 'exit 2 for each',
      met: outcomes.every((line) => line.endsWith('exit 2')),
    });
    expect(outcomes.every((line) => line.endsWith('exit 2'))).toBe(true);
  });

  it('37.8 row 8: --config reads regular files only, capped, and never quotes them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's2sp-config-probe-'));
    try {
      const fifo = join(dir, 'fifo.json');
      spawn('mkfifo', [fifo]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const secret = join(dir, 'secret');
      // A secret that parses as YAML (a key and a value), as a credentials file may.
      writeFileSync(secret, 'SECRET-FIRST-LINE-7f3a9: hunter2\n');
      const link = join(dir, 'link.json');
      symlinkSync(secret, link);
      const onFifo = await runCli(['--config', fifo], {}, 5_000);
      const onZero = await runCli(['--config', '/dev/zero'], {}, 5_000);
      const onLink = await runCli(['--config', link], {}, 5_000);
      const printed = onLink.stderr.includes('SECRET') || onLink.stderr.includes('hunter2');
      recordFigure({
        id: '37.8',
        title:
          's2sp-proxy --config naming a FIFO / /dev/zero / a link to a secret file: outcome, time (peak RSS for /dev/zero); the secret printed',
        value: `${describeOutcome(onFifo)}, ${Math.round(onFifo.elapsed)} ms / ${describeOutcome(onZero)}, ${Math.round(onZero.elapsed)} ms, ${Math.round(onZero.peakMiB)} MiB / ${describeOutcome(onLink)}; ${printed ? 'yes' : 'no'}`,
        target: 'exit 2 each, no content quoted',
        met: [onFifo, onZero, onLink].every((o) => o.exit === 2) && !printed,
      });
      expect(printed).toBe(false);
      expect([onFifo.exit, onZero.exit, onLink.exit]).toEqual([2, 2, 2]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('37.11 row 11: every round of 16 concurrent sampling calls from two 2026-07-28 clients (HTTP upstream)', async () => {
    const { agentModern, ALL } = (await import(
      join(PROXY_TESTS, 'agents.ts')
    )) as typeof import('../../packages/proxy/test/agents.js');
    const upstream = spawn(process.execPath, [RELAY, '--http'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        upstream.once('exit', (code) => reject(new Error(`relay fixture exited (${code})`)));
        upstream.stdout?.on('data', (chunk: Buffer) => {
          const found = /port (\d+)/.exec(chunk.toString());
          if (found) resolve(Number(found[1]));
        });
      });
      await using proxy = await startQuietProxy({
        upstream: { kind: 'http', url: `http://127.0.0.1:${port}/mcp` },
        auth: { bearerTokens: [ALICE, BOB] },
        // A call whose round never comes ends here rather than at the default time-out.
        timeoutSeconds: 15,
      });
      await using alice = await agentModern(proxy.listener.mcpUrl, 'alice', ALL, ALICE);
      await using bob = await agentModern(proxy.listener.mcpUrl, 'bob', ALL, BOB);
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => [
          alice.call('sample', { prompt: `a${i}`, ms: 50 }).catch(() => ({})),
          bob.call('sample', { prompt: `b${i}`, ms: 50 }).catch(() => ({})),
        ]).flat(),
      );
      const answered = outcomes.filter(
        (outcome, i) =>
          (outcome as { ok?: { model?: string } }).ok?.model === (i % 2 === 0 ? 'alice' : 'bob'),
      ).length;
      recordFigure({
        id: '37.11',
        title:
          "16 concurrent calls that sample (8 from each of two SDK v2 clients pinned to 2026-07-28, bearer tokens), relay fixture on Streamable HTTP, timeoutSeconds 15: calls answered with their own client's sample / input rounds each client got",
        value: `${answered} / ${alice.asked.length}, ${bob.asked.length}`,
        target: '16 / 8, 8',
        met: answered === 16 && alice.asked.length === 8 && bob.asked.length === 8,
      });
      expect(answered).toBe(16);
    } finally {
      upstream.kill();
    }
  });
});
