/**
 * Real MCP clients from npm against the real apps, no LLM: each client lists the tools and calls
 * them through its own API, and the test measures what reaches the model through that client's
 * own conversion of tool results (AI SDK: the tool's `toModelOutput`; LangChain: the
 * `ToolMessage` content; OpenAI Agents: the function tool's output; Mastra: the tool result as
 * JSON; Inspector CLI: what it prints). Three runs each: plain, async chain (get_alerts →
 * draw_chart with a resource_url) and sync chain through this project's adapter where one exists.
 * Optional arguments are sent as `null`, as strict-schema clients do.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { createMCPClient } from '@ai-sdk/mcp';
import type { ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { MCPClient } from '@mastra/mcp';
import {
  Agent,
  type FunctionTool,
  getAllMcpTools,
  MCPServerStreamableHttp,
  RunContext,
} from '@openai/agents';
import { S2SPDispatcher } from '@s2sp/client';
import { withS2SP as aiSdkS2SP } from '@s2sp/client/ai-sdk';
import { withS2SP as langchainS2SP } from '@s2sp/client/langchain';
import { withS2SP as mastraS2SP } from '@s2sp/client/mastra';
import { withS2SP as openAiS2SP } from '@s2sp/client/openai-agents';
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
type Call = (server: Server, tool: string, args: Record<string, unknown>) => Promise<string>;
interface Session {
  /** Calls a tool; returns the text that reaches the model after the client's own conversion. */
  readonly call: Call;
  close(): Promise<void>;
}
interface Driver {
  readonly name: string;
  open(urls: Record<Server, string>, s2sp: boolean): Promise<Session>;
}

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

const aiSdk: Driver = {
  name: 'Vercel AI SDK (@ai-sdk/mcp)',
  async open(urls, s2sp) {
    const clients = {
      weather: await createMCPClient({ transport: { type: 'http', url: urls.weather } }),
      charts: await createMCPClient({ transport: { type: 'http', url: urls.charts } }),
    };
    const dispatcher = new S2SPDispatcher();
    const wrap = <T extends Parameters<typeof aiSdkS2SP>[0]>(client: T): T =>
      s2sp ? aiSdkS2SP(client, { dispatcher }) : client;
    const tools = {
      weather: await wrap(clients.weather).tools(),
      charts: await wrap(clients.charts).tools(),
    };
    return {
      async call(server, name, args) {
        const tool = tools[server][name] as unknown as {
          execute: (input: unknown, options: unknown) => Promise<unknown>;
          toModelOutput: (o: { output: unknown; input: unknown; toolCallId: string }) => unknown;
        };
        const output = await tool.execute(args, { toolCallId: 'c1', messages: [] });
        return aiSdkText(await tool.toModelOutput({ output, input: args, toolCallId: 'c1' }));
      },
      async close() {
        await clients.weather.close();
        await clients.charts.close();
      },
    };
  },
};

const langchain: Driver = {
  name: 'LangChain (@langchain/mcp-adapters)',
  async open(urls, s2sp) {
    const config = {
      mcpServers: {
        weather: { url: urls.weather, transport: 'http' as const },
        charts: { url: urls.charts, transport: 'http' as const },
      },
    };
    const client = s2sp
      ? langchainS2SP(MultiServerMCPClient, config)
      : new MultiServerMCPClient(config);
    const tools: StructuredToolInterface[] = await client.getTools();
    return {
      async call(_server, name, args) {
        const tool = tools.find((t) => t.name === name);
        const message = (await tool?.invoke({
          id: 'c1',
          name,
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

const openAiAgents: Driver = {
  name: 'OpenAI Agents (MCPServerStreamableHttp, strict schemas)',
  async open(urls, s2sp) {
    const servers = {
      weather: new MCPServerStreamableHttp({ url: urls.weather, name: 'weather' }),
      charts: new MCPServerStreamableHttp({ url: urls.charts, name: 'charts' }),
    };
    await servers.weather.connect();
    await servers.charts.connect();
    const shared = { dispatcher: new S2SPDispatcher() };
    const wrapped = s2sp
      ? {
          weather: openAiS2SP(servers.weather, shared),
          charts: openAiS2SP(servers.charts, shared),
        }
      : servers;
    const runContext = new RunContext();
    const agent = new Agent({ name: 'matrix' });
    const tools = (await getAllMcpTools({
      mcpServers: [wrapped.weather, wrapped.charts],
      convertSchemasToStrict: true,
      runContext,
      agent,
    })) as FunctionTool[];
    for (const tool of tools) expect(tool.strict, `${tool.name} is strict`).toBe(true);
    return {
      async call(_server, name, args) {
        const tool = tools.find((t) => t.name === name);
        if (!tool) throw new Error(`no tool ${name}`);
        return agentsText(await tool.invoke(runContext, JSON.stringify(args)));
      },
      async close() {
        await servers.weather.close();
        await servers.charts.close();
      },
    };
  },
};

const require = createRequire(import.meta.url);
let mastraClients = 0;

const mastra: Driver = {
  name: 'Mastra (@mastra/mcp)',
  async open(urls, s2sp) {
    const plain = new MCPClient({
      id: `matrix-${++mastraClients}`,
      servers: { weather: { url: new URL(urls.weather) }, charts: { url: new URL(urls.charts) } },
    });
    const client = s2sp ? mastraS2SP(plain) : plain;
    const tools = (await client.getTools()) as Record<
      string,
      { execute: (context: unknown, options?: unknown) => Promise<unknown> }
    >;
    return {
      async call(server, name, args) {
        const tool = tools[`${server}_${name}`];
        if (!tool) throw new Error(`no tool ${server}_${name}`);
        // Mastra hands a tool result without toModelOutput to the model as JSON.
        return JSON.stringify(await tool.execute({ context: args, runtimeContext: undefined }));
      },
      close: () => plain.disconnect(),
    };
  },
};

const inspectorCli = require.resolve('@modelcontextprotocol/inspector-cli/build/index.js');
const run = promisify(execFile);

const inspector: Driver = {
  name: 'MCP Inspector CLI (@modelcontextprotocol/inspector-cli)',
  async open(urls) {
    return {
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

// [driver, has an @s2sp/client adapter, most characters of the abstract result]. The Inspector
// prints the whole result, text and structuredContent, indented: it has no model, a person reads it.
const drivers: [string, Driver, boolean, number][] = [
  [aiSdk.name, aiSdk, true, 6_000],
  [langchain.name, langchain, true, 6_000],
  [openAiAgents.name, openAiAgents, true, 6_000],
  [mastra.name, mastra, true, 6_000],
  [inspector.name, inspector, false, 14_000],
];

describe.each(drivers)('%s', (_name, driver, hasAdapter, maxAbstractChars) => {
  const urls = () => ({ weather: pipeline.weatherMcpUrl, charts: pipeline.chartMcpUrl });

  it('plain: the whole table reaches the model (the control)', async () => {
    const session = await driver.open(urls(), false);
    try {
      const text = await session.call('weather', 'get_alerts', {
        area: AREA,
        abstract_domains: null,
        mode: null,
      });
      expect(leaked(text, fragments).length).toBeGreaterThan(100);
      measured.push(`${driver.name} plain get_alerts: ${text.length}`);
    } finally {
      await session.close();
    }
  });

  it('async: get_alerts → draw_chart, bounded and without a body value', async () => {
    const session = await driver.open(urls(), false);
    try {
      const alerts = await session.call('weather', 'get_alerts', {
        area: AREA,
        abstract_domains: ABSTRACT_DOMAINS,
        mode: null,
      });
      const s2sp = findS2SP(alerts);
      expect(s2sp?.resource_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//);
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
      expect(alerts.length).toBeLessThan(maxAbstractChars);
      expect(chart.length).toBeLessThan(1_500);
      measured.push(
        `${driver.name} async get_alerts: ${alerts.length}, draw_chart: ${chart.length}`,
      );
    } finally {
      await session.close();
    }
  });

  if (hasAdapter)
    it('sync through @s2sp/client: the body stays in the agent', async () => {
      const session = await driver.open(urls(), true);
      try {
        const alerts = await session.call('weather', 'get_alerts', {
          area: AREA,
          abstract_domains: ABSTRACT_DOMAINS,
          mode: 'sync',
        });
        const s2sp = findS2SP(alerts);
        expect(s2sp?.resource_url).toMatch(/^ddi:\/\//);
        const kept = (s2sp?.abstract ?? []).filter((row) => String(row.event).includes(KEEP_EVENT));
        const chart = await session.call('charts', 'draw_chart', {
          ...NULLS,
          abstract_data: kept,
          resource_url: s2sp?.resource_url,
        });
        expect(chart).toMatch(/rows_charted.{0,4}13/);
        for (const text of [alerts, chart]) expect(leaked(text, fragments)).toEqual([]);
        expect(alerts.length).toBeLessThan(maxAbstractChars);
        expect(chart.length).toBeLessThan(1_500);
        measured.push(
          `${driver.name} sync get_alerts: ${alerts.length}, draw_chart: ${chart.length}`,
        );
      } finally {
        await session.close();
      }
    });
});
