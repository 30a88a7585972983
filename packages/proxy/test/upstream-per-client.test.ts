/**
 * One client, one upstream session: what one client leaves in its upstream session (a database
 * connection, an open transaction) is never another's, and what the upstream asks a client on
 * that session reaches that client or nobody, even when nothing on the wire relates it to a call
 * (a detached task, a call already answered). Two clients of each era, tokens of their own, in
 * front of the relay fixture on stdio (a process each) and on Streamable HTTP (an MCP session
 * each); `sharedUpstream` keeps the one session and says so.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StdioUpstream } from '../src/index.js';
import { type Agent, ALL, agentModern, agentV1, agentV2 } from './agents.js';
import { type RunningProxy, startProxy, startProxyBefore } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/relay-server.mjs', import.meta.url));
const STDIO: StdioUpstream = { kind: 'stdio', command: process.execPath, args: [FIXTURE] };
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdefgh';

const ERAS = [
  ['SDK v1 (2025)', agentV1],
  ['SDK v2 (2025)', agentV2],
  ['SDK v2 (2026-07-28)', agentModern],
] as const;

/** Asks `agent` for `later` until the detached request has an outcome. */
async function laterOutcome(agent: Agent) {
  for (let i = 0; i < 200; i++) {
    const outcome = (await agent.call('later')) as { pending?: boolean };
    if (!outcome.pending) return outcome as Awaited<ReturnType<Agent['call']>>;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the detached request never had an outcome');
}

describe.each([
  ['stdio', 'stdio'],
  ['Streamable HTTP', 'http'],
] as const)(
  's2sp-proxy gives each client its own upstream session (upstream on %s)',
  (_t, kind) => {
    let running: RunningProxy;
    beforeAll(async () => {
      running = await startProxyBefore(FIXTURE, kind, { auth: { bearerTokens: [ALICE, BOB] } });
    });
    afterAll(() => running?.[Symbol.asyncDispose]());

    it.each(ERAS)('keeps one %s client’s upstream state from another', async (_sdk, make) => {
      const { mcpUrl } = running.listener;
      await using alice = await make(mcpUrl, 'alice', ALL, ALICE);
      await using bob = await make(mcpUrl, 'bob', ALL, BOB);
      expect(await alice.call('remember', { value: 'alice’s connection' })).toEqual({
        remembered: 'alice’s connection',
      });
      expect(await bob.call('recall')).toEqual({ remembered: null });
      expect(await alice.call('recall')).toEqual({ remembered: 'alice’s connection' });
    });

    it.each(ERAS)(
      'sends what the upstream asks on a %s client’s session to that client or nobody',
      async (sdk, make) => {
        const { mcpUrl } = running.listener;
        await using alice = await make(mcpUrl, 'alice', ALL, ALICE);
        await using bob = await make(mcpUrl, 'bob', ALL, BOB);
        // Alice's call is answered at once; her session's upstream asks for a sample 100 ms later,
        // while Bob has a call in flight on his own session and Alice has none.
        expect(await alice.call('sample_later', { prompt: 'alice’s secret', ms: 100 })).toEqual({
          scheduled: true,
        });
        expect(await bob.call('wait', { ms: 800 })).toEqual({ waited: 800 });
        const outcome = await laterOutcome(alice);
        expect(bob.asked).toEqual([]);
        if (sdk === 'SDK v2 (2026-07-28)' && outcome.error) {
          // A 2026-07-28 client is reached only within a request of its own: with none open (the
          // timer fired before Alice asked for the outcome), refused.
          expect(outcome.error.code).toBe(-32600);
          expect(alice.asked).toEqual([]);
        } else {
          // A 2025-era client's session reaches it outside any request (its standalone stream); a
          // 2026-07-28 client's, within its next request (the poll for the outcome).
          expect(outcome.ok).toMatchObject({ model: 'alice' });
          expect(alice.asked).toEqual(['sampling']);
        }
      },
    );

    it('delivers every round of 16 concurrent sampling calls from two 2026-07-28 clients', async () => {
      const { mcpUrl } = running.listener;
      await using alice = await agentModern(mcpUrl, 'alice', ALL, ALICE);
      await using bob = await agentModern(mcpUrl, 'bob', ALL, BOB);
      const calls = Array.from({ length: 8 }, (_, i) => [
        alice.call('sample', { prompt: `a${i}`, ms: 50 }),
        bob.call('sample', { prompt: `b${i}`, ms: 50 }),
      ]).flat();
      const outcomes = await Promise.all(calls);
      expect(
        outcomes.map((outcome) => (outcome.ok as { model?: string } | undefined)?.model),
      ).toEqual(Array.from({ length: 8 }, () => ['alice', 'bob']).flat());
      expect([alice.asked.length, bob.asked.length]).toEqual([8, 8]);
    });

    it('opens an upstream session per client, and closes a session’s with it', async () => {
      const before = running.proxy.upstreamSessions();
      const { mcpUrl } = running.listener;
      {
        await using alice = await agentV1(mcpUrl, 'alice', ALL, ALICE);
        await alice.call('recall');
        expect(running.proxy.upstreamSessions()).toBe(before + 1);
      }
      for (let i = 0; i < 100 && running.proxy.upstreamSessions() > before; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(running.proxy.upstreamSessions()).toBe(before);
    });
  },
);

describe('s2sp-proxy with sharedUpstream', () => {
  let running: RunningProxy;
  beforeAll(async () => {
    running = await startProxy({
      upstream: STDIO,
      sharedUpstream: true,
      auth: { bearerTokens: [ALICE, BOB] },
    });
  });
  afterAll(() => running?.proxy.close());

  it('keeps one session for every client: state is shared, as the operator chose', async () => {
    const { mcpUrl } = running.listener;
    await using alice = await agentV1(mcpUrl, 'alice', ALL, ALICE);
    await using bob = await agentV1(mcpUrl, 'bob', ALL, BOB);
    await alice.call('remember', { value: 'shared' });
    expect(await bob.call('recall')).toEqual({ remembered: 'shared' });
    expect(running.proxy.upstreamSessions()).toBe(1);
  });

  it('refuses a request no call relates while two clients are connected', async () => {
    const { mcpUrl } = running.listener;
    await using alice = await agentV1(mcpUrl, 'alice', ALL, ALICE);
    await using bob = await agentV1(mcpUrl, 'bob', ALL, BOB);
    await alice.call('sample_later', { ms: 100 });
    const bobs = bob.call('wait', { ms: 600 });
    const outcome = await laterOutcome(alice);
    await bobs;
    expect(outcome.error?.code).toBe(-32600);
    expect(bob.asked).toEqual([]);
    expect(alice.asked).toEqual([]);
  });
});

describe('s2sp-proxy’s limit on upstream sessions', () => {
  it('refuses a client beyond maxUpstreamSessions with unavailable, and serves it once one closes', async () => {
    await using running = await startProxy({
      upstream: STDIO,
      maxUpstreamSessions: 1,
      auth: { bearerTokens: [ALICE, BOB] },
    });
    const { mcpUrl } = running.listener;
    const alice = await agentV1(mcpUrl, 'alice', ALL, ALICE);
    await alice.call('recall');
    await using bob = await agentV1(mcpUrl, 'bob', ALL, BOB);
    const refused = (await bob.raw.callTool({ name: 'recall', arguments: {} })) as {
      isError?: boolean;
      _meta?: Record<string, unknown>;
    };
    expect(refused.isError).toBe(true);
    expect(refused._meta?.['s2sp/error-code']).toBe('unavailable');
    await alice[Symbol.asyncDispose]();
    for (let i = 0; i < 100 && running.proxy.upstreamSessions() > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await bob.call('recall')).toEqual({ remembered: null });
  });
});
