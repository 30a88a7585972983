/**
 * The proxy relays what the upstream asks a client (`sampling/createMessage`,
 * `elicitation/create`, `roots/list`) to the client whose call is in flight, when it declared the
 * capability, and refuses it clearly when it did not; it never reaches another client. Official
 * SDK clients of both majors on the proxy's Streamable HTTP endpoint, in front of the fixture
 * upstream (test/fixtures/relay-server.mjs) on Streamable HTTP (where the proxy knows which call a
 * request came with) and on stdio (where it does not), and in front of server-everything.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StdioUpstream, UpstreamTarget } from '../src/index.js';
import { httpFixture, type RunningProxy, startProxy, upstreamBin } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/relay-server.mjs', import.meta.url));
const STDIO: StdioUpstream = { kind: 'stdio', command: process.execPath, args: [FIXTURE] };

const EVERYTHING: StdioUpstream = {
  kind: 'stdio',
  command: process.execPath,
  args: [upstreamBin('@modelcontextprotocol/server-everything', 'dist/index.js'), 'stdio'],
};

const ALL: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {} },
  roots: { listChanged: true },
};

/** A client's answers, each naming the client, and what it was asked. */
function answers(name: string, asked: string[]) {
  return {
    sample: () => {
      asked.push('sampling');
      return {
        model: name,
        role: 'assistant' as const,
        content: { type: 'text' as const, text: `${name} says hi` },
      };
    },
    elicit: () => {
      asked.push('elicitation');
      return { action: 'accept' as const, content: { name } };
    },
    roots: () => {
      asked.push('roots');
      return { roots: [{ uri: `file:///${name}`, name }] };
    },
  };
}

interface Agent extends AsyncDisposable {
  /** Calls a fixture tool and reads its `{ ok } | { error }` answer. */
  call(tool: string, args?: Record<string, unknown>): Promise<Outcome>;
  /** What the upstream asked this client, in order. */
  readonly asked: string[];
  readonly listTools: () => Promise<string[]>;
  readonly raw: Client | ClientV2;
}

type Outcome = {
  ok?: Record<string, unknown>;
  error?: { code: number; data?: unknown };
};

/** An SDK v1 client declaring `capabilities`, answering as `name`. */
async function agentV1(mcpUrl: string, name: string, capabilities: ClientCapabilities) {
  const asked: string[] = [];
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  const answer = answers(name, asked);
  if (capabilities.sampling) client.setRequestHandler(CreateMessageRequestSchema, answer.sample);
  if (capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, answer.elicit);
  if (capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, answer.roots);
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  return agent(client, asked);
}

/** An SDK v2 client on the 2025 era (`initialize`), declaring `capabilities`. */
function agentV2(mcpUrl: string, name: string, capabilities: ClientCapabilities) {
  return agentV2On('legacy', mcpUrl, name, capabilities);
}

/** An SDK v2 client pinned to 2026-07-28 (no session: it declares `capabilities` per request). */
function agentModern(mcpUrl: string, name: string, capabilities: ClientCapabilities) {
  return agentV2On({ pin: '2026-07-28' }, mcpUrl, name, capabilities);
}

async function agentV2On(
  mode: 'legacy' | { pin: string },
  mcpUrl: string,
  name: string,
  capabilities: ClientCapabilities,
) {
  const asked: string[] = [];
  const client = new ClientV2(
    { name, version: '1.0.0' },
    { capabilities: capabilities as never, versionNegotiation: { mode } },
  );
  const answer = answers(name, asked);
  if (capabilities.sampling) client.setRequestHandler('sampling/createMessage', answer.sample);
  if (capabilities.elicitation) client.setRequestHandler('elicitation/create', answer.elicit);
  if (capabilities.roots) client.setRequestHandler('roots/list', answer.roots);
  await client.connect(new HttpV2(new URL(mcpUrl)));
  expect(client.getNegotiatedProtocolVersion()).toBe(mode === 'legacy' ? '2025-11-25' : mode.pin);
  return agent(client, asked);
}

function agent(client: Client | ClientV2, asked: string[]): Agent {
  return {
    asked,
    raw: client,
    async call(tool, args = {}) {
      const result = (await client.callTool({ name: tool, arguments: args })) as {
        content: { type: string; text?: string }[];
      };
      return JSON.parse(result.content[0]?.text ?? 'null') as Outcome;
    },
    listTools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    // Ends the MCP session (DELETE), not only the connection: the proxy then counts it no more.
    async [Symbol.asyncDispose]() {
      const transport = client.transport as { terminateSession?: () => Promise<void> } | undefined;
      await transport?.terminateSession?.().catch(() => {});
      await client.close();
    },
  };
}

const MISSING = -32021;

type Text = { content: { text?: string }[] };

describe.each([
  ['Streamable HTTP', 'http'],
  ['stdio', 'stdio'],
] as const)('s2sp-proxy relaying to its clients, upstream on %s', (_title, kind) => {
  let running: RunningProxy;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    let target: UpstreamTarget = STDIO;
    if (kind === 'http') {
      const upstream = await httpFixture(FIXTURE);
      child = upstream.child;
      target = { kind: 'http', url: upstream.url };
    }
    running = await startProxy({ upstream: target });
  });
  afterAll(async () => {
    await running?.proxy.close();
    child?.kill();
  });

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
      const roots = await a.call('roots');
      if (kind === 'stdio' && make === agentModern) {
        // On stdio nothing relates a roots/list to the call, and a 2026-07-28 client has no
        // session to be the sole one: the upstream keeps its roots (client-relay.ts).
        expect(roots.error?.code).toBe(-32600);
        expect(a.asked).toEqual(['sampling', 'elicitation']);
        return;
      }
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

  it('relays a roots/list that no call relates only while its client is the sole one connected', async () => {
    {
      await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
      expect((await a.call('roots_alone')).ok).toEqual({
        roots: [{ uri: 'file:///alice', name: 'alice' }],
      });
    }
    // A second session: the proxy's session upstream is shared, no one client's roots stand for it.
    await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
    await using b = await agentV1(running.listener.mcpUrl, 'bob', ALL);
    expect((await a.call('roots_alone')).error?.code).toBe(-32600);
    expect([a.asked, b.asked]).toEqual([[], []]);
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
    it('refuses what it cannot attribute: two clients with calls in flight, nothing relating it', async () => {
      await using a = await agentV1(running.listener.mcpUrl, 'alice', ALL);
      await using b = await agentV1(running.listener.mcpUrl, 'bob', ALL);
      const waiting = a.call('wait', { ms: 500 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await b.call('sample')).error?.code).toBe(-32600);
      await waiting;
      expect([a.asked, b.asked]).toEqual([[], []]);
    });
  }
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
