/**
 * The OpenAI Agents SDK's `MCPServerStreamableHttp` through `@s2sp/client/openai-agents`, which
 * reads the MCP SDK client in its private `underlying.session`: 0.20 on the MCP SDK v2 (it
 * negotiates `auto` itself), 0.14.3 on v1.
 */
import * as openAiAgents from '@openai/agents';
import * as lowestOpenAiAgents from '@s2sp/agents-lowest/openai-agents';
import { S2SPDispatcher } from '@s2sp/client';
import { type AgentsMcpServer, withS2SP } from '@s2sp/client/openai-agents';
import type { McpEra } from '@s2sp/test-utils';
import { expect, vi } from 'vitest';
import {
  type AdapterRuns,
  clientPerServerRun,
  type FrameworkVersion,
  installedVersion,
  type MatrixRun,
  type RoleRun,
} from '../adapter-runs.js';

type Server = AgentsMcpServer & { connect(): Promise<void>; close(): Promise<void> };
type MakeServer = (url: string, name: string) => Server;

/**
 * Runs `list` (a `getAllMcpTools`) with the OpenAI Agents SDK's warnings captured instead of
 * printed, and returns its tools with those warnings. The SDK takes no logger: it warns through
 * `console.warn`, once for each tool whose schema it leaves non-strict ("Error converting MCP
 * schema to strict mode"), which a passing run would otherwise print to its stderr. The caller
 * asserts on them: one a non-strict tool, and nothing else.
 */
export async function listWithWarnings<TTool extends { readonly strict?: boolean }>(
  list: () => Promise<TTool[]>,
): Promise<{ tools: TTool[]; warnings: string[] }> {
  const warnings: string[] = [];
  const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
    warnings.push(args.map(String).join(' '));
  });
  try {
    return { tools: await list(), warnings };
  } finally {
    warn.mockRestore();
  }
}

/** The consumer-role run; the SDK hangs a result's `isError` and `_meta` on its content array. */
function roleRun(name: string, version: FrameworkVersion, make: MakeServer): RoleRun {
  return clientPerServerRun(name, version, async (url, server, dispatcher) => {
    const plain = make(url, server);
    await plain.connect();
    const wrapped = withS2SP(plain, { dispatcher });
    return { call: (tool, args) => wrapped.callTool(tool, args), close: () => plain.close() };
  });
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
 * The matrix run, with `convertSchemasToStrict: true`: `list` lists the servers' tools as
 * `getAllMcpTools` does for a run; `notStrict` names the tools it must leave non-strict.
 */
function matrixRun<TServer extends Server>(
  name: string,
  version: FrameworkVersion,
  era: McpEra,
  make: (url: string, name: string) => TServer,
  list: (servers: TServer[]) => Promise<AgentsTool[]>,
  notStrict: readonly string[] = [],
): MatrixRun {
  return {
    name,
    version,
    era,
    async open(urls, s2sp) {
      const servers = {
        weather: make(urls.weather, 'weather'),
        charts: make(urls.charts, 'charts'),
      };
      await servers.weather.connect();
      await servers.charts.connect();
      const shared = { dispatcher: new S2SPDispatcher() };
      const wrap = (server: TServer) => (s2sp ? withS2SP(server, shared) : server);
      const { tools, warnings } = await listWithWarnings(() =>
        list([wrap(servers.weather), wrap(servers.charts)]),
      );
      expect(tools.filter((tool) => !tool.strict).map((tool) => tool.name)).toEqual(notStrict);
      // The SDK's one warning for each tool it left non-strict, and no other.
      expect(warnings).toHaveLength(notStrict.length);
      for (const warning of warnings) expect(warning).toMatch(/strict mode/);
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

const current = `OpenAI Agents ${installedVersion('@openai/agents')}`;
const lowest = `OpenAI Agents ${installedVersion('@openai/agents', 'lowest')}`;
const makeCurrent = (url: string, name: string) =>
  new openAiAgents.MCPServerStreamableHttp({ url, name });
const makeLowest = (url: string, name: string) =>
  new lowestOpenAiAgents.MCPServerStreamableHttp({ url, name });

export const runs: AdapterRuns = {
  packages: ['@openai/agents'],
  consumerRole: [roleRun(current, 'current', makeCurrent), roleRun(lowest, 'lowest', makeLowest)],
  clientMatrix: [
    matrixRun(
      current,
      'current',
      'auto',
      makeCurrent,
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
    ),
    matrixRun(lowest, 'lowest', 'legacy', makeLowest, async (mcpServers) => {
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
    }),
  ],
};
