/**
 * The proxy relays what the upstream asks a client (`sampling/createMessage`,
 * `elicitation/create`, `roots/list`) to the client whose call is in flight, when it declared the
 * capability, and refuses it clearly when it did not; it never reaches another client. Official
 * SDK clients of both majors on the proxy's Streamable HTTP endpoint, in front of the fixture
 * upstream (test/fixtures/relay-server.mjs) on Streamable HTTP (where the proxy knows which call a
 * request came with) and on stdio (where it does not), and in front of server-everything.
 */
import { fileURLToPath } from 'node:url';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MODERN_REVISION } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { StdioUpstream } from '../src/index.js';
import { ALL, agentModern, agentV1, agentV2 } from './agents.js';
import { type RunningProxy, startProxy, startProxyBefore, upstreamBin } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/relay-server.mjs', import.meta.url));
const STDIO: StdioUpstream = { kind: 'stdio', command: process.execPath, args: [FIXTURE] };

const EVERYTHING: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [upstreamBin('@modelcontextprotocol/server-everything', 'dist/index.js'), 'stdio'],
};

const MISSING = -32021;

type Text = { content: { text?: string }[] };

describe.each([
  ['Streamable HTTP', 'http'],
  ['stdio', 'stdio'],
] as const)('s2sp-proxy relaying to its clients, upstream on %s', (_title, kind) => {
  let running: RunningProxy;
  beforeAll(async () => {
    running = await startProxyBefore(FIXTURE, kind);
  });
  afterAll(() => running?.[Symbol.asyncDispose]());

  it.each([
    ['v1', agentV1],
    ['v2 (2025 era)', agentV2],
    ['v2 (2026-07-28)', agentModern],
  ])(
    'relays sampling, elicitation and roots to an SDK %s client that declared them',
    async (_sdk, make) => {
      await using a = await make(running.listener.mcpUrl, 'alice', ALL);
      expect((await a.call('sample')).ok).toMatchObject({ model: 'alice' });
      expect((await a.call('elicit')).ok).toEqual({ action: 'accept', content: { name: 'alice' } });
      // On stdio nothing relates it to the call, but the upstream session is this client's own.
      const roots = await a.call('roots');
      expect(roots.ok).toEqual({ roots: [{ uri: 'file:///alice', name: 'alice' }] });
      expect(a.asked).toEqual(['sampling', 'elicitation', 'roots']);
    },
  );

  it('refuses a client that did not declare the capability with -32021 and what it lacks', async () => {
    await using bare = await agentV1(running.listener.mcpUrl, 'bob', {});
    const sampled = await bare.call('sample');
    expect(sampled.error).toMatchObject({
      code: MISSING,
      data: { requiredCapabilities: { sampling: {} } },
    });
    expect((await bare.call('elicit')).error).toMatchObject({
      code: MISSING,
      data: { requiredCapabilities: { elicitation: {} } },
    });
    expect((await bare.call('roots')).error).toMatchObject({
      code: MISSING,
      data: { requiredCapabilities: { roots: {} } },
    });
    await using modern = await agentModern(running.listener.mcpUrl, 'dave', {});
    expect((await modern.call('sample')).error).toMatchObject({
      code: MISSING,
      data: { requiredCapabilities: { sampling: {} } },
    });
    // A form-only client is not sent a URL-mode elicitation.
    await using formOnly = await agentV2(running.listener.mcpUrl, 'carol', ALL);
    expect((await formOnly.call('elicit_url')).error).toMatchObject({
      code: MISSING,
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    });
    expect(formOnly.asked).toEqual([]);
  });

  it('refuses methods it does not relay', async () => {
    await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
    expect((await a.call('other')).error?.code).toBe(-32601);
  });

  it('relays a roots/list that no call relates to the client whose upstream session it came on', async () => {
    await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
    await using b = await agentV1(running.listener.mcpUrl, 'bob', ALL);
    expect((await a.call('roots_alone')).ok).toEqual({
      roots: [{ uri: 'file:///alice', name: 'alice' }],
    });
    expect([a.asked, b.asked]).toEqual([['roots'], []]);
  });

  it('passes a client’s notifications/roots/list_changed on to the upstream', async () => {
    await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
    const count = async () =>
      JSON.parse(
        ((await a.raw.callTool({ name: 'roots_changed' })) as Text).content[0]?.text ?? '{}',
      ).count as number;
    const before = await count();
    await (a.raw as Client).sendRootsListChanged();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await count()).toBe(before + 1);
  });

  if (kind === 'http') {
    it('sends each client only the requests of its own calls, when they overlap', async () => {
      await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
      await using b = await agentV2(running.listener.mcpUrl, 'bob', ALL);
      await using c = await agentModern(running.listener.mcpUrl, 'carol', ALL);
      const [fromA, fromB, fromC] = await Promise.all([
        a.call('sample', { ms: 200 }),
        b.call('sample', { ms: 200 }),
        c.call('sample', { ms: 200 }),
      ]);
      expect(fromA.ok).toMatchObject({ model: 'alice' });
      expect(fromB.ok).toMatchObject({ model: 'bob' });
      expect(fromC.ok).toMatchObject({ model: 'carol' });
      expect([a.asked, b.asked, c.asked]).toEqual([['sampling'], ['sampling'], ['sampling']]);
    });
  } else {
    it('relays what nothing on the wire attributes to the client that owns the session', async () => {
      await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
      await using b = await agentV1(running.listener.mcpUrl, 'bob', ALL);
      const waiting = a.call('wait', { ms: 500 });
      expect((await b.call('sample')).ok).toMatchObject({ model: 'bob' });
      await waiting;
      expect([a.asked, b.asked]).toEqual([[], ['sampling']]);
    });
  }
});

describe('s2sp-proxy relaying with sharedUpstream (one upstream session, stdio)', () => {
  let running: RunningProxy;
  beforeAll(async () => {
    running = await startProxy({ upstream: STDIO, sharedUpstream: true });
  });
  afterAll(() => running?.proxy.close());

  it('relays a roots/list that no call relates only while its client is the sole one connected', async () => {
    {
      await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
      expect((await a.call('roots_alone')).ok).toEqual({
        roots: [{ uri: 'file:///alice', name: 'alice' }],
      });
    }
    // A second session: the upstream session is shared, no one client's roots stand for it.
    await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
    await using b = await agentV1(running.listener.mcpUrl, 'bob', ALL);
    expect((await a.call('roots_alone')).error?.code).toBe(-32600);
    expect([a.asked, b.asked]).toEqual([[], []]);
  });

  it('refuses what it cannot attribute: two clients connected, nothing relating it', async () => {
    await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
    await using b = await agentV1(running.listener.mcpUrl, 'bob', ALL);
    const waiting = a.call('wait', { ms: 500 });
    expect((await b.call('sample')).error?.code).toBe(-32600);
    await waiting;
    expect([a.asked, b.asked]).toEqual([[], []]);
  });
});

describe('s2sp-proxy in front of server-everything', () => {
  let running: RunningProxy;
  beforeAll(async () => {
    running = await startProxy({ upstream: EVERYTHING });
  });
  afterAll(() => running?.proxy.close());

  it('lists the tools that need a client capability, and relays them', async () => {
    await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
    const tools = await a.listTools();
    expect(tools).toEqual(
      expect.arrayContaining([
        'trigger-sampling-request',
        'trigger-elicitation-request',
        'get-roots-list',
      ]),
    );
    const result = (await a.raw.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'hello', maxTokens: 5 },
    })) as { content: { text?: string }[] };
    expect(result.content[0]?.text).toContain('"model": "alice"');
    expect(a.asked).toEqual(['sampling']);
  });
});

const MODERN = fileURLToPath(new URL('./fixtures/modern-relay-server.mjs', import.meta.url));

describe.each([
  ['Streamable HTTP', 'http'],
  ['stdio', 'stdio'],
] as const)(
  's2sp-proxy in front of a 2026-07-28-only upstream on %s, relaying its input rounds',
  (_title, kind) => {
    let running: RunningProxy;
    beforeAll(async () => {
      running = await startProxyBefore(MODERN, kind);
    });
    afterAll(() => running?.[Symbol.asyncDispose]());

    it.each([
      ['v1', agentV1],
      ['v2 (2025 era)', agentV2],
      ['v2 (2026-07-28)', agentModern],
    ])('bridges sampling, elicitation and roots rounds to an SDK %s client', async (_sdk, make) => {
      await using a = await make(running.listener.mcpUrl, 'alice', ALL);
      expect((await a.call('sample')).ok).toMatchObject({ model: 'alice' });
      expect((await a.call('elicit')).ok).toEqual({ action: 'accept', content: { name: 'alice' } });
      expect((await a.call('roots')).ok).toEqual({
        roots: [{ uri: 'file:///alice', name: 'alice' }],
      });
      expect(a.asked).toEqual(['sampling', 'elicitation', 'roots']);
    });

    it("hands a 2026-07-28 client the upstream's own rounds, which any replica of the proxy continues", async () => {
      // A second proxy in front of the same upstream: nothing of a round is kept in either.
      await using other = await startProxyBefore(MODERN, kind);
      const first = await modernClient(running.listener.mcpUrl, { elicitation: {} });
      const second = await modernClient(other.listener.mcpUrl, { elicitation: {} });
      try {
        const round = await first.request(
          { method: 'tools/call', params: { name: 'elicit', arguments: {} } },
          RoundSchema,
          { allowInputRequired: true },
        );
        // The upstream's round as it sent it: its key, its request.
        expect(round).toMatchObject({
          resultType: 'input_required',
          inputRequests: { asked: { method: 'elicitation/create' } },
        });
        const answer = { action: 'accept', content: { name: 'alice' } };
        const done = await second.request(
          {
            method: 'tools/call',
            params: { name: 'elicit', arguments: {}, inputResponses: { asked: answer } },
          },
          RoundSchema,
          { allowInputRequired: true },
        );
        expect(JSON.parse((done.content as { text: string }[])[0]?.text ?? '')).toEqual({
          ok: answer,
        });
      } finally {
        await first.close();
        await second.close();
      }
    });
  },
);

/** An SDK v2 client pinned to 2026-07-28 that answers no round by itself (`allowInputRequired`). */
async function modernClient(mcpUrl: string, capabilities: Record<string, object>) {
  const client = new ModernClient(
    { name: 'round-reader', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await client.connect(new ModernHttpTransport(new URL(mcpUrl)));
  return client;
}

/** A round or a result, as it came. */
const RoundSchema = z.looseObject({});
