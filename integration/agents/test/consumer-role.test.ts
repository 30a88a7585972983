/**
 * The consumer-role rule (PROTOCOL §7.7) through all six adapters, against real MCP servers on
 * loopback: a server that declares S2SP without the consumer role never receives the rows behind
 * a `ddi://` handle — the call is refused with `forbidden` and its handler never runs — and the
 * same handle then works with a server that declares `consumer`. A server that declares no S2SP
 * capability at all (as the Python reference) still gets the rows, as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMCPClient } from '@ai-sdk/mcp';
import { query } from '@anthropic-ai/claude-agent-sdk';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { MCPClient } from '@mastra/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCPServerStreamableHttp } from '@openai/agents';
import * as lowestAiSdkMcp from '@s2sp/agents-lowest/ai-sdk-mcp';
import * as lowestLangchainMcp from '@s2sp/agents-lowest/langchain-mcp-adapters';
import * as lowestMastraMcp from '@s2sp/agents-lowest/mastra-mcp';
import * as lowestMcpSdk from '@s2sp/agents-lowest/mcp-sdk';
import * as lowestOpenAiAgents from '@s2sp/agents-lowest/openai-agents';
import {
  type CallToolCapable,
  withS2SP as mcpSdkS2SP,
  readS2SPCapability,
  S2SPDispatcher,
} from '@s2sp/client';
import { type AiSdkMcpClient, withS2SP as aiSdkS2SP } from '@s2sp/client/ai-sdk';
import { withS2SP as claudeS2SP } from '@s2sp/client/claude-agent-sdk';
import { type LangChainMcpClient, withS2SP as langchainS2SP } from '@s2sp/client/langchain';
import { withS2SP as mastraS2SP } from '@s2sp/client/mastra';
import { type AgentsMcpServer, withS2SP as openAiS2SP } from '@s2sp/client/openai-agents';
import type { RowWithId } from '@s2sp/core';
import { createS2SPServer, type ListeningServer, silentLogger } from '@s2sp/server';
import { connectSdkClient, runTitle, SDK_CLIENT_RUNS, type SdkClientRun } from '@s2sp/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startMessagesModel } from './scripted-model.js';

const BODY_MARKER = 'BODY-VALUE';
const TABLE = Array.from({ length: 6 }, (_, i) => ({
  event: i % 2 === 0 ? 'Flood Warning' : 'Heat Advisory',
  description: `${BODY_MARKER}-description-${i}`,
}));
/** The rows every hand-off names. */
const CHOSEN = [0, 3];
const ABSTRACT_DATA = JSON.stringify(
  CHOSEN.map((id) => ({ _row_id: id, event: TABLE[id]?.event })),
);
const ERROR_CODE = 's2sp/error-code';

type ServerName = 'alerts' | 'summaries' | 'plain';

interface Servers extends AsyncDisposable {
  readonly urls: Record<ServerName, string>;
  /** Arguments `annotate` (on the resource-only server) received. */
  readonly annotateCalls: unknown[];
  /** Rows `summarise_alerts` (on the consumer server) received, per call. */
  readonly consumed: RowWithId[][];
  /** `body_data` `summarise_plain` (on the server that declares nothing) received, per call. */
  readonly plainBodies: unknown[];
}

const handOffShape = {
  abstract_data: z.string(),
  resource_url: z.string().optional(),
  body_data: z.string().optional(),
};

/**
 * alerts: S2SP roles ["resource"], with `get_alerts` and a plain `annotate` tool that takes the
 * hand-off arguments (what a prompt-injected model might pass a handle to); summaries: roles
 * ["consumer"]; plain: no S2SP capability, one consumer-shaped tool of its own.
 */
async function startServers(): Promise<Servers> {
  const annotateCalls: unknown[] = [];
  const consumed: RowWithId[][] = [];
  const plainBodies: unknown[] = [];
  const alerts = createS2SPServer({ name: 'alerts', version: '1', logger: silentLogger })
    .resourceTool('get_alerts', { description: 'Active alerts.' }, () => TABLE)
    .use((mcp) => {
      mcp.registerTool(
        'annotate',
        { description: 'Notes on alerts.', inputSchema: handOffShape },
        (args) => {
          annotateCalls.push(args);
          return { content: [{ type: 'text', text: 'noted' }] };
        },
      );
    });
  const summaries = createS2SPServer({
    name: 'summaries',
    version: '1',
    logger: silentLogger,
  }).consumerTool('summarise_alerts', { description: 'Summarises alerts.' }, (rows) => {
    consumed.push(rows);
    return `summarised ${rows.length} alerts`;
  });
  const plain = createS2SPServer({ name: 'plain', version: '1', logger: silentLogger }).use(
    (mcp) => {
      mcp.registerTool(
        'summarise_plain',
        { description: 'Summarises alerts.', inputSchema: handOffShape },
        (args) => {
          plainBodies.push(args.body_data);
          return { content: [{ type: 'text', text: 'plain summary' }] };
        },
      );
    },
  );
  const listening: ListeningServer[] = [];
  const close = async () => {
    for (const server of [alerts, summaries, plain]) await server.close();
  };
  try {
    listening.push(await alerts.listen(), await summaries.listen(), await plain.listen());
  } catch (error) {
    await close();
    throw error;
  }
  const [a, s, p] = listening as [ListeningServer, ListeningServer, ListeningServer];
  return {
    urls: { alerts: a.mcpUrl, summaries: s.mcpUrl, plain: p.mcpUrl },
    annotateCalls,
    consumed,
    plainBodies,
    [Symbol.asyncDispose]: close,
  };
}

/** What a call through an adapter gave the agent: its text, and the S2SP error code if any. */
interface Outcome {
  readonly text: string;
  readonly code: unknown;
}

interface Session {
  call(server: ServerName, tool: string, args: Record<string, unknown>): Promise<Outcome>;
  close(): Promise<void>;
}

interface Adapter {
  readonly name: string;
  open(urls: Record<ServerName, string>, dispatcher: S2SPDispatcher): Promise<Session>;
}

function codeIn(result: unknown): unknown {
  return (result as { _meta?: Record<string, unknown> } | undefined)?._meta?.[ERROR_CODE];
}

function handleIn(text: string): string {
  const match = /ddi:\/\/[A-Za-z0-9_-]+/.exec(text);
  if (!match) throw new Error('no ddi:// handle in the result');
  return match[0];
}

const SERVERS: ServerName[] = ['alerts', 'summaries', 'plain'];

/** The MCP SDK `withS2SP`, over any `Client` that `connect` makes (v1, v1 lowest, v2 per era). */
function mcpSdk<TClient extends CallToolCapable & { close(): Promise<void> }>(
  name: string,
  connect: (url: string) => Promise<TClient>,
): Adapter {
  return {
    name,
    async open(urls, dispatcher) {
      const clients = {} as Record<ServerName, TClient>;
      for (const server of SERVERS)
        clients[server] = mcpSdkS2SP(await connect(urls[server]), { dispatcher });
      return {
        async call(server, tool, args) {
          const result = await clients[server].callTool({ name: tool, arguments: args });
          return { text: JSON.stringify(result), code: codeIn(result) };
        },
        async close() {
          for (const server of SERVERS) await clients[server].close();
        },
      };
    },
  };
}

const sdkRun = (run: SdkClientRun) =>
  mcpSdk(`MCP SDK ${runTitle(run)}`, async (url) => (await connectSdkClient(url, run)).client);

const lowestSdk = mcpSdk('MCP SDK v1 1.26.0', async (url) => {
  const client = new lowestMcpSdk.Client({ name: 'agent', version: '1' });
  await client.connect(new lowestMcpSdk.StreamableHTTPClientTransport(new URL(url)));
  return client;
});

/** `@ai-sdk/mcp`, reading `initializeResult`. */
function aiSdk<TClient extends AiSdkMcpClient & { close(): Promise<void> }>(
  name: string,
  create: (config: { transport: { type: 'http'; url: string } }) => Promise<TClient>,
): Adapter {
  return {
    name,
    async open(urls, dispatcher) {
      type Tools = Record<string, { execute: (input: unknown, options: unknown) => unknown }>;
      const clients = {} as Record<ServerName, TClient>;
      const tools = {} as Record<ServerName, Tools>;
      for (const server of SERVERS) {
        const client = await create({ transport: { type: 'http', url: urls[server] } });
        clients[server] = client;
        tools[server] = (await aiSdkS2SP(client, { dispatcher }).tools()) as unknown as Tools;
      }
      return {
        async call(server, tool, args) {
          const found = tools[server][tool];
          if (!found) throw new Error(`no tool ${tool}`);
          const result = await found.execute(args, { toolCallId: 'c1', messages: [] });
          return { text: JSON.stringify(result), code: codeIn(result) };
        },
        async close() {
          for (const server of SERVERS) await clients[server].close();
        },
      };
    },
  };
}

/** LangChain's `MultiServerMCPClient`, reading `getClient(server).getServerCapabilities()`. */
function langchain<
  TClient extends LangChainMcpClient & { getTools(): Promise<unknown[]>; close(): Promise<void> },
>(
  name: string,
  Client: new (config: {
    mcpServers: Record<string, { url: string; transport: 'http' }>;
  }) => TClient,
): Adapter {
  return {
    name,
    async open(urls, dispatcher) {
      const mcpServers = Object.fromEntries(
        SERVERS.map((server) => [server, { url: urls[server], transport: 'http' as const }]),
      );
      const client = langchainS2SP(Client, { mcpServers }, { dispatcher });
      const tools = (await client.getTools()) as StructuredToolInterface[];
      return {
        async call(_server, tool, args) {
          const found = tools.find((t) => t.name === tool);
          if (!found) throw new Error(`no tool ${tool}`);
          try {
            return { text: JSON.stringify(await found.invoke(args)), code: undefined };
          } catch (error) {
            // LangChain reports tool failures by throwing; the adapter's keep their code.
            return { text: String(error), code: (error as { code?: unknown }).code };
          }
        },
        close: () => client.close(),
      };
    },
  };
}

/** OpenAI Agents' `MCPServerStreamableHttp`, reading `underlying.session` (its MCP SDK client). */
function openAiAgents<
  TServer extends AgentsMcpServer & { connect(): Promise<void>; close(): Promise<void> },
>(name: string, make: (url: string, name: string) => TServer): Adapter {
  return {
    name,
    async open(urls, dispatcher) {
      const servers = {} as Record<ServerName, TServer>;
      for (const server of SERVERS) {
        const plain = make(urls[server], server);
        await plain.connect();
        servers[server] = openAiS2SP(plain, { dispatcher });
      }
      return {
        async call(server, tool, args) {
          // The SDK hangs a result's isError and _meta on the content array it returns.
          const content = await servers[server].callTool(tool, args);
          return { text: JSON.stringify(content), code: codeIn(content) };
        },
        async close() {
          for (const server of SERVERS) await servers[server].close();
        },
      };
    },
  };
}

let mastraClients = 0;
// Mastra refuses two live MCPClients with the same configuration unless each has an id.
const mastraConfig = (urls: Record<ServerName, string>) => ({
  id: `s2sp-role-${++mastraClients}`,
  servers: Object.fromEntries(SERVERS.map((server) => [server, { url: new URL(urls[server]) }])),
});

/** Mastra 2 (`listToolsets()`, `execute(input, context)`), reading the private connection client. */
const mastra: Adapter = {
  name: 'Mastra 2.0.0',
  async open(urls, dispatcher) {
    const plain = new MCPClient(mastraConfig(urls));
    const toolsets = await mastraS2SP(plain, { dispatcher }).listToolsets();
    return {
      async call(server, tool, args) {
        const execute = toolsets[server]?.[tool]?.execute;
        if (!execute) throw new Error(`no tool ${server}.${tool}`);
        const result = await execute(args, {} as never);
        return { text: JSON.stringify(result), code: codeIn(result) };
      },
      close: () => plain.disconnect(),
    };
  },
};

/** Mastra 0.24 with `@mastra/mcp` 0.14.5 (`getToolsets()`, `execute({ context })`). */
const lowestMastra: Adapter = {
  name: 'Mastra 0.14.5',
  async open(urls, dispatcher) {
    const plain = new lowestMastraMcp.MCPClient(mastraConfig(urls));
    const toolsets = await mastraS2SP(plain, { dispatcher }).getToolsets();
    return {
      async call(server, tool, args) {
        const execute = toolsets[server]?.[tool]?.execute as
          | ((context: unknown) => Promise<unknown>)
          | undefined;
        if (!execute) throw new Error(`no tool ${server}.${tool}`);
        const result = await execute({ context: args });
        return { text: JSON.stringify(result), code: codeIn(result) };
      },
      close: () => plain.disconnect(),
    };
  },
};

/** Every adapter at the current and the lowest framework versions, MCP SDK clients per era. */
const adapters: Adapter[] = [
  ...SDK_CLIENT_RUNS.map(sdkRun),
  lowestSdk,
  aiSdk('AI SDK 2.0.99', createMCPClient),
  aiSdk('AI SDK 2.0.1', lowestAiSdkMcp.createMCPClient),
  langchain('LangChain.js 1.1.4', MultiServerMCPClient),
  langchain('LangChain.js 1.0.0', lowestLangchainMcp.MultiServerMCPClient),
  openAiAgents('OpenAI Agents 0.20.0', (url, name) => new MCPServerStreamableHttp({ url, name })),
  openAiAgents(
    'OpenAI Agents 0.14.3',
    (url, name) => new lowestOpenAiAgents.MCPServerStreamableHttp({ url, name }),
  ),
  mastra,
  lowestMastra,
];

/** Expected rows of the consumer: the chosen rows, whole. */
const CONSUMER_ROWS = CHOSEN.map((id) => ({ _row_id: id, ...TABLE[id] }));
/** Expected body rows of the plain tool: the chosen rows' body columns. */
const PLAIN_BODY = CHOSEN.map((id) => ({ _row_id: id, description: TABLE[id]?.description }));

function expectRuleKept(servers: Servers, refusals: string[], dispatcher: S2SPDispatcher): void {
  // The dispatcher refused the resource-only server once, with forbidden…
  expect(refusals).toEqual(['forbidden']);
  // …whose handler never ran, so it never saw a row, …
  expect(servers.annotateCalls).toEqual([]);
  // …and the same handle then reached the consumer whole.
  expect(servers.consumed).toEqual([CONSUMER_ROWS]);
  // A server that declares nothing gets the rows, as before the declaration existed.
  expect(servers.plainBodies.map((body) => JSON.parse(String(body)))).toEqual([PLAIN_BODY]);
  expect(dispatcher.pending).toBe(0);
}

describe.each(adapters)('consumer role through $name', (adapter) => {
  it('refuses a handle for a server without the consumer role, which then works where it belongs', async () => {
    await using servers = await startServers();
    const refusals: string[] = [];
    const dispatcher = new S2SPDispatcher({
      onRefusal: ({ error }) => refusals.push(error.code),
    });
    const session = await adapter.open(servers.urls, dispatcher);
    try {
      const sync = { abstract_domains: 'event', mode: 'sync' };
      const first = await session.call('alerts', 'get_alerts', sync);
      expect(first.text).not.toContain(BODY_MARKER);
      const handle = handleIn(first.text);
      const handOff = { abstract_data: ABSTRACT_DATA, resource_url: handle };

      const refused = await session.call('alerts', 'annotate', handOff);
      expect(refused.code).toBe('forbidden');
      expect(dispatcher.pending).toBe(1);

      const done = await session.call('summaries', 'summarise_alerts', handOff);
      expect(done.code).toBeUndefined();

      const second = await session.call('alerts', 'get_alerts', sync);
      const plain = await session.call('plain', 'summarise_plain', {
        abstract_data: ABSTRACT_DATA,
        resource_url: handleIn(second.text),
      });
      expect(plain.code).toBeUndefined();
      expectRuleKept(servers, refusals, dispatcher);
    } finally {
      await session.close();
    }
  });
});

describe('consumer role through the Claude Agent SDK', () => {
  const home = mkdtempSync(join(tmpdir(), 's2sp-claude-role-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('refuses a handle for a server without the consumer role, which then works where it belongs', async () => {
    await using servers = await startServers();
    // The scripted model: get_alerts (sync), annotate with the handle, summarise_alerts with the
    // same handle, get_alerts again, summarise_plain with the new handle, then answer.
    const steps = [
      'mcp__alerts__get_alerts',
      'mcp__alerts__annotate',
      'mcp__summaries__summarise_alerts',
      'mcp__alerts__get_alerts',
      'mcp__plain__summarise_plain',
    ];
    await using model = await startMessagesModel({
      planner: (_tools, results) => {
        const tool = steps[results.length];
        if (!tool) return undefined;
        if (tool.endsWith('get_alerts'))
          return { tool, args: { abstract_domains: 'event', mode: 'sync' } };
        const from = results[tool.endsWith('summarise_plain') ? 3 : 0] ?? '';
        return { tool, args: { abstract_data: ABSTRACT_DATA, resource_url: handleIn(from) } };
      },
    });
    const refusals: string[] = [];
    const dispatcher = new S2SPDispatcher({ onRefusal: ({ error }) => refusals.push(error.code) });
    const stderr: string[] = [];
    const messages: { type: string; subtype?: string; result?: string }[] = [];
    try {
      for await (const message of claudeS2SP(query, { dispatcher })({
        prompt: 'Summarise the flood warnings.',
        options: {
          cwd: home,
          model: 'claude-scripted',
          maxTurns: 8,
          tools: [],
          allowedTools: steps,
          mcpServers: Object.fromEntries(
            SERVERS.map((server) => [server, { type: 'http' as const, url: servers.urls[server] }]),
          ),
          strictMcpConfig: true,
          settingSources: [],
          persistSession: false,
          stderr: (data) => stderr.push(data),
          env: {
            PATH: process.env.PATH,
            HOME: home,
            CLAUDE_CONFIG_DIR: join(home, '.claude'),
            ANTHROPIC_BASE_URL: model.url,
            ANTHROPIC_API_KEY: 'test-key',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_TELEMETRY: '1',
            DISABLE_ERROR_REPORTING: '1',
            DISABLE_AUTOUPDATER: '1',
            MAX_MCP_OUTPUT_TOKENS: '1000000',
          },
        },
      }))
        messages.push(message as (typeof messages)[number]);
    } catch (error) {
      throw new Error(`${String(error)}\n${stderr.join('')}`);
    }
    expect(messages.find((m) => m.type === 'result')?.result).toBe('Done.');
    // Claude Code shows the model only the denial's text; the code is the dispatcher's.
    expect(model.requests.join('')).not.toContain(BODY_MARKER);
    expectRuleKept(servers, refusals, dispatcher);
  });
});

describe('the servers of this test', () => {
  it('declare S2SP as resource-only and consumer, and nothing at all', async () => {
    await using servers = await startServers();
    const roles: Record<string, unknown> = {};
    for (const server of SERVERS) {
      const client = new Client({ name: 'probe', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(servers.urls[server])));
      roles[server] = readS2SPCapability(client.getServerCapabilities())?.roles ?? 'none';
      await client.close();
    }
    expect(roles).toEqual({ alerts: ['resource'], summaries: ['consumer'], plain: 'none' });
  });
});
