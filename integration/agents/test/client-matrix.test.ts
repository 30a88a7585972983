/**
 * Real MCP clients from npm against the real apps, no LLM: each client lists the tools and calls
 * them through its own API, and the test measures what reaches the model through that client's
 * own conversion of tool results (MCP SDK: the text blocks; AI SDK: the tool's `toModelOutput`;
 * LangChain: the `ToolMessage` content; OpenAI Agents: the function tool's output; Mastra: the
 * tool result as JSON; Inspector CLI: what it prints). Every framework runs at its current major
 * and at the lowest version `@s2sp/client` claims (from `lowest/`), in each era it can
 * negotiate (`McpEra`). Three runs each: plain, async chain (get_alerts → draw_chart with a
 * resource_url) and sync chain through this project's adapter. Optional arguments are sent as
 * `null`, as strict-schema clients do.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import * as aiSdkMcp from '@ai-sdk/mcp';
import type { ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import * as langchainMcp from '@langchain/mcp-adapters';
import { noopLogger } from '@mastra/core/logger';
import * as mastraMcp from '@mastra/mcp';
import * as mcpClientV2 from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as openAiAgents from '@openai/agents';
import * as lowestAiSdkMcp from '@s2sp/agents-lowest/ai-sdk-mcp';
import * as lowestLangchainMcp from '@s2sp/agents-lowest/langchain-mcp-adapters';
import * as lowestMastraMcp from '@s2sp/agents-lowest/mastra-mcp';
import * as lowestMcpSdk from '@s2sp/agents-lowest/mcp-sdk';
import * as lowestOpenAiAgents from '@s2sp/agents-lowest/openai-agents';
import { type CallToolCapable, withS2SP as mcpSdkS2SP, S2SPDispatcher } from '@s2sp/client';
import { type AiSdkMcpClient, withS2SP as aiSdkS2SP } from '@s2sp/client/ai-sdk';
import { type LangChainMcpClient, withS2SP as langchainS2SP } from '@s2sp/client/langchain';
import { withS2SP as mastraS2SP } from '@s2sp/client/mastra';
import { type AgentsMcpServer, withS2SP as openAiS2SP } from '@s2sp/client/openai-agents';
import {
  expectedRevision,
  type McpEra,
  MODERN_REVISION,
  versionNegotiation,
} from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFragments } from './checks.js';
import {
  ABSTRACT_DOMAINS,
  AREA,
  KEEP_EVENT,
  leaked,
  type Pipeline,
  startPipeline,
} from './pipeline.js';

type Server = 'weather' | 'charts';
/** The configuration the matrix gives LangChain's `MultiServerMCPClient`, in both versions. */
type LangChainConfig = {
  mcpServers: Record<Server, { url: string; transport: 'http' }>;
};
type Call = (server: Server, tool: string, args: Record<string, unknown>) => Promise<string>;
interface Session {
  /** Calls a tool; returns the text that reaches the model after the client's own conversion. */
  readonly call: Call;
  /**
   * The protocol revision the client negotiated with each server, where the client tells;
   * `undefined` for clients that only speak the 2025 era.
   */
  readonly revisions: readonly (string | undefined)[];
  close(): Promise<void>;
}
interface Driver {
  /** The framework and its version, e.g. `OpenAI Agents 0.20.0`. */
  readonly name: string;
  /** The era the client negotiates (see `McpEra`); pinned runs fail at connect when unserved. */
  readonly era: McpEra;
  /** Whether `@s2sp/client` has an adapter for it. */
  readonly adapter: boolean;
  open(urls: Record<Server, string>, s2sp: boolean): Promise<Session>;
}

/** Characters of an MCP tool result as a model reads it: its text blocks. */
function mcpText(result: unknown): string {
  const { content } = result as { content: { type: string; text?: string }[] };
  return content.map((block) => block.text ?? '').join('');
}

/** The official MCP SDK `Client`, v1 (the current and the lowest claimed) or v2 in each era. */
function mcpSdk<TClient extends CallToolCapable & { close(): Promise<void> }>(
  name: string,
  era: McpEra,
  connect: (url: string) => Promise<{ client: TClient; revision: string | undefined }>,
): Driver {
  return {
    name,
    era,
    adapter: true,
    async open(urls, s2sp) {
      const weather = await connect(urls.weather);
      const charts = await connect(urls.charts).catch(async (error: unknown) => {
        await weather.client.close();
        throw error;
      });
      const dispatcher = new S2SPDispatcher();
      const wrap = (client: TClient) => (s2sp ? mcpSdkS2SP(client, { dispatcher }) : client);
      const clients = { weather: wrap(weather.client), charts: wrap(charts.client) };
      return {
        revisions: [weather.revision, charts.revision],
        async call(server, tool, args) {
          return mcpText(await clients[server].callTool({ name: tool, arguments: args }));
        },
        async close() {
          await weather.client.close();
          await charts.client.close();
        },
      };
    },
  };
}

const info = { name: 'matrix', version: '1' };

const mcpSdkV1 = mcpSdk(
  `MCP SDK v1 Client ${version('@modelcontextprotocol/sdk')}`,
  'legacy',
  async (url) => {
    const client = new ClientV1(info);
    await client.connect(new TransportV1(new URL(url)));
    return { client, revision: undefined };
  },
);

const lowestMcpSdkV1 = mcpSdk(
  `MCP SDK v1 Client ${version('@modelcontextprotocol/sdk', 'lowest')}`,
  'legacy',
  async (url) => {
    const client = new lowestMcpSdk.Client(info);
    await client.connect(new lowestMcpSdk.StreamableHTTPClientTransport(new URL(url)));
    return { client, revision: undefined };
  },
);

const mcpSdkV2 = (era: McpEra) =>
  mcpSdk(`MCP SDK v2 Client ${version('@modelcontextprotocol/client')}`, era, async (url) => {
    const client = new mcpClientV2.Client(info, { versionNegotiation: versionNegotiation(era) });
    await client.connect(new mcpClientV2.StreamableHTTPClientTransport(new URL(url)));
    return { client, revision: client.getNegotiatedProtocolVersion() };
  });

/** Characters of an AI SDK model output (text parts, and file parts as their base64 data). */
function aiSdkText(output: unknown): string {
  const o = output as { type: string; value: unknown };
  if (o.type === 'text') return String(o.value);
  if (o.type === 'content')
    return (o.value as { type: string; text?: string; data?: { data?: string } }[])
      .map((part) => part.text ?? part.data?.data ?? '')
      .join('');
  return JSON.stringify(o.value);
}

/**
 * `@ai-sdk/mcp`: 2.x from 2.0.34 opens with a 2026-07-28 `server/discover` probe and falls
 * back to `initialize` (era `auto`); 2.0.1, the lowest claimed, only knows `initialize`.
 */
function aiSdk<
  TClient extends AiSdkMcpClient & {
    readonly initializeResult: { readonly protocolVersion: string };
    close(): Promise<void>;
  },
>(
  createMCPClient: (config: { transport: { type: 'http'; url: string } }) => Promise<TClient>,
  name: string,
  era: McpEra,
): Driver {
  return {
    name,
    era,
    adapter: true,
    async open(urls, s2sp) {
      const clients = {
        weather: await createMCPClient({ transport: { type: 'http', url: urls.weather } }),
        charts: await createMCPClient({ transport: { type: 'http', url: urls.charts } }),
      };
      const dispatcher = new S2SPDispatcher();
      const wrap = (client: TClient) => (s2sp ? aiSdkS2SP(client, { dispatcher }) : client);
      const tools = {
        weather: await wrap(clients.weather).tools(),
        charts: await wrap(clients.charts).tools(),
      };
      return {
        revisions: [clients.weather, clients.charts].map(
          (client) => client.initializeResult.protocolVersion,
        ),
        async call(server, tool, args) {
          const found = (tools[server] as Record<string, unknown>)[tool] as {
            execute: (input: unknown, options: unknown) => Promise<unknown>;
            toModelOutput: (o: { output: unknown; input: unknown; toolCallId: string }) => unknown;
          };
          const output = await found.execute(args, { toolCallId: 'c1', messages: [] });
          return aiSdkText(await found.toModelOutput({ output, input: args, toolCallId: 'c1' }));
        },
        async close() {
          await clients.weather.close();
          await clients.charts.close();
        },
      };
    },
  };
}

/** LangChain's `MultiServerMCPClient` (on the MCP SDK v1). */
function langchain<
  TClient extends LangChainMcpClient & {
    getTools(): Promise<unknown[]>;
    close(): Promise<void>;
  },
>(Client: new (config: LangChainConfig) => TClient, name: string): Driver {
  return {
    name,
    era: 'legacy',
    adapter: true,
    async open(urls, s2sp) {
      const config: LangChainConfig = {
        mcpServers: {
          weather: { url: urls.weather, transport: 'http' },
          charts: { url: urls.charts, transport: 'http' },
        },
      };
      const client = s2sp ? langchainS2SP(Client, config) : new Client(config);
      const tools = (await client.getTools()) as StructuredToolInterface[];
      return {
        revisions: [],
        async call(_server, tool, args) {
          const found = tools.find((t) => t.name === tool);
          const message = (await found?.invoke({
            id: 'c1',
            name: tool,
            args,
            type: 'tool_call',
          })) as ToolMessage;
          // LangChain sends string content as is, and content blocks as JSON.
          return typeof message.content === 'string'
            ? message.content
            : JSON.stringify(message.content);
        },
        close: () => client.close(),
      };
    },
  };
}

/** An OpenAI Agents function tool's output as the model gets it: text items' text, else JSON. */
function agentsText(output: unknown): string {
  if (typeof output === 'string') return output;
  const items = Array.isArray(output) ? output : [output];
  return items
    .map((item: { type?: string; text?: string }) =>
      item.type === 'text' && typeof item.text === 'string' ? item.text : JSON.stringify(item),
    )
    .join('');
}

/** The revision an OpenAI Agents server's MCP SDK client negotiated (v2 tells; v1 does not). */
function agentsRevision(server: object): string | undefined {
  const { underlying } = server as {
    underlying?: { session?: { getNegotiatedProtocolVersion?(): string | undefined } };
  };
  return underlying?.session?.getNegotiatedProtocolVersion?.();
}

/**
 * The tools whose S2SP parameters take an open object: the resource tools' `filter`, and the
 * consumer tool's `column_mapping` (PROTOCOL §4, §7.3).
 */
const OPEN_OBJECT_TOOLS = ['get_alerts', 'get_alerts_for_point', 'get_forecast', 'draw_chart'];

/** What the matrix uses of an OpenAI Agents function tool. */
interface AgentsTool {
  readonly name: string;
  readonly strict?: boolean;
  invoke(json: string): Promise<unknown>;
}

/**
 * OpenAI Agents' `MCPServerStreamableHttp` with `convertSchemasToStrict: true`: 0.20 on the MCP
 * SDK v2 (it negotiates `auto` itself), 0.14.3 on v1. `open` makes the servers, `list` lists
 * their tools as `getAllMcpTools` does for a run.
 */
function agents<
  TServer extends AgentsMcpServer & { connect(): Promise<void>; close(): Promise<void> },
>(
  name: string,
  era: McpEra,
  open: (url: string, name: string) => TServer,
  list: (servers: TServer[]) => Promise<AgentsTool[]>,
  notStrict: readonly string[] = [],
): Driver {
  return {
    name,
    era,
    adapter: true,
    async open(urls, s2sp) {
      const servers = {
        weather: open(urls.weather, 'weather'),
        charts: open(urls.charts, 'charts'),
      };
      await servers.weather.connect();
      await servers.charts.connect();
      const shared = { dispatcher: new S2SPDispatcher() };
      const wrap = (server: TServer) => (s2sp ? openAiS2SP(server, shared) : server);
      const tools = await list([wrap(servers.weather), wrap(servers.charts)]);
      expect(tools.filter((tool) => !tool.strict).map((tool) => tool.name)).toEqual(notStrict);
      return {
        revisions: [agentsRevision(servers.weather), agentsRevision(servers.charts)],
        async call(_server, tool, args) {
          const found = tools.find((t) => t.name === tool);
          if (!found) throw new Error(`no tool ${tool}`);
          return agentsText(await found.invoke(JSON.stringify(args)));
        },
        async close() {
          await servers.weather.close();
          await servers.charts.close();
        },
      };
    },
  };
}

const currentAgents = agents(
  `OpenAI Agents ${version('@openai/agents')}`,
  'auto',
  (url, name) => new openAiAgents.MCPServerStreamableHttp({ url, name }),
  async (mcpServers) => {
    const runContext = new openAiAgents.RunContext();
    const agent = new openAiAgents.Agent({ name: 'matrix' });
    const options = { mcpServers, convertSchemasToStrict: true, runContext, agent };
    const tools = (await openAiAgents.getAllMcpTools(options)) as openAiAgents.FunctionTool[];
    return tools.map((tool) => ({
      name: tool.name,
      strict: tool.strict,
      invoke: (json) => tool.invoke(runContext, json),
    }));
  },
  // 0.20 refuses to make an open object strict (0.14 closed it, so a strict model could send
  // only an empty object there): these tools stay non-strict, and their calls still work.
  OPEN_OBJECT_TOOLS,
);

const lowestAgents = agents(
  `OpenAI Agents ${version('@openai/agents', 'lowest')}`,
  'legacy',
  (url, name) => new lowestOpenAiAgents.MCPServerStreamableHttp({ url, name }),
  async (mcpServers) => {
    const runContext = new lowestOpenAiAgents.RunContext();
    const agent = new lowestOpenAiAgents.Agent({ name: 'matrix' });
    const options = { mcpServers, convertSchemasToStrict: true, runContext, agent };
    const tools = (await lowestOpenAiAgents.getAllMcpTools(
      options,
    )) as lowestOpenAiAgents.FunctionTool[];
    return tools.map((tool) => ({
      name: tool.name,
      strict: tool.strict,
      invoke: (json) => tool.invoke(runContext, json),
    }));
  },
);

let mastraClients = 0;

/**
 * Mastra 2 (`@mastra/mcp` 2 on the MCP SDK v2; `auto`, or pinned with the server's
 * `protocolVersion`): `listToolsWithErrors()`, so a server it could not connect to fails the
 * run, and tools run as `execute(input, context)`.
 */
function mastra2(era: McpEra): Driver {
  return {
    name: `Mastra ${version('@mastra/mcp')}`,
    era,
    adapter: true,
    async open(urls, s2sp) {
      const protocolVersion = era === 'auto' ? {} : { protocolVersion: era };
      const plain = new mastraMcp.MCPClient({
        id: `matrix-${++mastraClients}`,
        servers: {
          weather: { url: new URL(urls.weather), ...protocolVersion },
          charts: { url: new URL(urls.charts), ...protocolVersion },
        },
      });
      // The run reads connection failures from `errors`; Mastra would also log them at length.
      plain.__setLogger(noopLogger);
      const client = s2sp ? mastraS2SP(plain) : plain;
      const { tools, errors, errorDetails } = await client.listToolsWithErrors();
      if (Object.keys(errors).length > 0) {
        await plain.disconnect();
        throw new Error(`Mastra could not list the tools: ${JSON.stringify(errorDetails)}`);
      }
      const versions = plain.getServerProtocolVersions();
      return {
        revisions: [versions.weather, versions.charts],
        async call(server, tool, args) {
          const found = tools[`${server}_${tool}`];
          if (!found?.execute) throw new Error(`no tool ${server}_${tool}`);
          // Mastra hands a tool result without toModelOutput to the model as JSON.
          return JSON.stringify(await found.execute(args, {} as never));
        },
        close: () => plain.disconnect(),
      };
    },
  };
}

/** Mastra 0.24 with `@mastra/mcp` 0.14.5 (the lowest claimed; MCP SDK v1). */
const mastra014: Driver = {
  name: `Mastra ${version('@mastra/mcp', 'lowest')}`,
  era: 'legacy',
  adapter: true,
  async open(urls, s2sp) {
    const plain = new lowestMastraMcp.MCPClient({
      id: `matrix-${++mastraClients}`,
      servers: { weather: { url: new URL(urls.weather) }, charts: { url: new URL(urls.charts) } },
    });
    const client = s2sp ? mastraS2SP(plain) : plain;
    const tools = (await client.getTools()) as Record<
      string,
      { execute: (context: unknown, options?: unknown) => Promise<unknown> }
    >;
    return {
      revisions: [],
      async call(server, tool, args) {
        const found = tools[`${server}_${tool}`];
        if (!found) throw new Error(`no tool ${server}_${tool}`);
        return JSON.stringify(await found.execute({ context: args, runtimeContext: undefined }));
      },
      close: () => plain.disconnect(),
    };
  },
};

const require = createRequire(import.meta.url);

/** The installed version of `name` in this package, or in `lowest/` (the lowest claimed). */
function version(name: string, where: '.' | 'lowest' = '.'): string {
  const manifest = new URL(`../${where}/node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

const inspectorCli = require.resolve('@modelcontextprotocol/inspector-cli/build/index.js');
const run = promisify(execFile);

const inspector: Driver = {
  name: `MCP Inspector CLI ${version('@modelcontextprotocol/inspector-cli')}`,
  era: 'legacy',
  adapter: false,
  async open(urls) {
    return {
      revisions: [],
      async call(server, name, args) {
        const toolArgs = Object.entries(args)
          .filter(([, value]) => value !== null)
          .map(
            ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
          );
        const { stdout } = await run(
          process.execPath,
          [
            inspectorCli,
            urls[server],
            '--transport',
            'http',
            '--method',
            'tools/call',
            '--tool-name',
            name,
            '--tool-arg',
            ...toolArgs,
            // 1.0.3 finds its own package.json relative to the working directory.
          ],
          { cwd: dirname(inspectorCli) },
        );
        return stdout;
      },
      async close() {},
    };
  },
};

/** The S2SP result (abstract rows, resource_url) in whatever a client made of it. */
function findS2SP(
  value: unknown,
  depth = 0,
): { abstract: Record<string, unknown>[]; resource_url: string } | undefined {
  if (depth > 6) return undefined;
  if (typeof value === 'string') {
    try {
      return findS2SP(JSON.parse(value), depth + 1);
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findS2SP(item, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.abstract) && typeof o.resource_url === 'string')
      return o as { abstract: Record<string, unknown>[]; resource_url: string };
    for (const item of Object.values(o)) {
      const found = findS2SP(item, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/** draw_chart's optional arguments as a strict-schema client sends them when unused. */
const NULLS = {
  group_by: null,
  title: null,
  include_image: null,
  body_data: null,
  column_mapping: null,
};

let pipeline: Pipeline;
let fragments: Set<string>;
const measured: string[] = [];
beforeAll(async () => {
  pipeline = await startPipeline();
  fragments = allFragments(pipeline);
});
afterAll(async () => {
  await pipeline[Symbol.asyncDispose]();
  process.stderr.write(`characters reaching the model per client:\n${measured.join('\n')}\n`);
});

// Every framework at its current major and at the lowest version @s2sp/client claims, each in
// the eras it can negotiate. `auto` speaks 2026-07-28 as soon as the servers serve it.
const drivers: Driver[] = [
  mcpSdkV1,
  lowestMcpSdkV1,
  mcpSdkV2('legacy'),
  mcpSdkV2('auto'),
  mcpSdkV2(MODERN_REVISION),
  aiSdk(aiSdkMcp.createMCPClient, `AI SDK @ai-sdk/mcp ${version('@ai-sdk/mcp')}`, 'auto'),
  aiSdk(
    lowestAiSdkMcp.createMCPClient,
    `AI SDK @ai-sdk/mcp ${version('@ai-sdk/mcp', 'lowest')}`,
    'legacy',
  ),
  langchain(langchainMcp.MultiServerMCPClient, `LangChain ${version('@langchain/mcp-adapters')}`),
  langchain(
    lowestLangchainMcp.MultiServerMCPClient,
    `LangChain ${version('@langchain/mcp-adapters', 'lowest')}`,
  ),
  currentAgents,
  lowestAgents,
  mastra2('auto'),
  mastra2(MODERN_REVISION),
  mastra014,
  inspector,
];

/** Most characters of the abstract result: the Inspector prints it whole, indented, for a person. */
const maxAbstractChars = (driver: Driver) => (driver === inspector ? 14_000 : 6_000);

describe.each(drivers.map((driver) => [`${driver.name}, era ${driver.era}`, driver] as const))(
  '%s',
  (_title, driver) => {
    const urls = () => ({ weather: pipeline.weatherMcpUrl, charts: pipeline.chartMcpUrl });
    const label = `${driver.name} (${driver.era})`;

    it('negotiates the era it asks for, and the whole table reaches the model plain (the control)', async () => {
      const session = await driver.open(urls(), false);
      try {
        for (const revision of session.revisions)
          expect([undefined, expectedRevision(driver.era)]).toContain(revision);
        if (driver.era !== 'legacy')
          expect(session.revisions).toEqual([
            expectedRevision(driver.era),
            expectedRevision(driver.era),
          ]);
        const text = await session.call('weather', 'get_alerts', {
          area: AREA,
          abstract_domains: null,
          mode: null,
        });
        expect(leaked(text, fragments).length).toBeGreaterThan(100);
        measured.push(`${label} plain get_alerts: ${text.length}`);
      } finally {
        await session.close();
      }
    });

    /**
     * get_alerts (abstract in `mode`) → draw_chart with the heat rows and the resource_url, through
     * the adapter when `s2sp`: no body value reaches the model and both results stay bounded.
     */
    const chain = async (mode: 'async' | 'sync', resourceUrl: RegExp) => {
      const session = await driver.open(urls(), mode === 'sync');
      try {
        const alerts = await session.call('weather', 'get_alerts', {
          area: AREA,
          abstract_domains: ABSTRACT_DOMAINS,
          mode: mode === 'sync' ? 'sync' : null,
        });
        const s2sp = findS2SP(alerts);
        expect(s2sp?.resource_url).toMatch(resourceUrl);
        const kept = (s2sp?.abstract ?? []).filter((row) => String(row.event).includes(KEEP_EVENT));
        expect(kept).toHaveLength(13);
        const chart = await session.call('charts', 'draw_chart', {
          ...NULLS,
          abstract_data: kept,
          resource_url: s2sp?.resource_url,
        });
        expect(chart).toMatch(/chart_url/);
        expect(chart).toMatch(/rows_charted.{0,4}13/);
        for (const text of [alerts, chart]) expect(leaked(text, fragments)).toEqual([]);
        expect(alerts.length).toBeLessThan(maxAbstractChars(driver));
        expect(chart.length).toBeLessThan(1_500);
        measured.push(`${label} ${mode} get_alerts: ${alerts.length}, draw_chart: ${chart.length}`);
      } finally {
        await session.close();
      }
    };

    it('async: get_alerts → draw_chart, bounded and without a body value', () =>
      chain('async', /^http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//));

    if (driver.adapter)
      it('sync through @s2sp/client: the body stays in the agent', () =>
        chain('sync', /^ddi:\/\//));
  },
);
