/**
 * The Vercel AI SDK's MCP client (`@ai-sdk/mcp`) through `@s2sp/client/ai-sdk`: 2.x from 2.0.34
 * opens with a 2026-07-28 `server/discover` probe and falls back to `initialize` (era `auto`);
 * 2.0.1, the lowest claimed, only knows `initialize`.
 */
import * as aiSdkMcp from '@ai-sdk/mcp';
import * as lowestAiSdkMcp from '@s2sp/agents-lowest/ai-sdk';
import { S2SPDispatcher } from '@s2sp/client';
import { type AiSdkMcpClient, withS2SP } from '@s2sp/client/ai-sdk';
import type { McpEra } from '@s2sp/test-utils';
import {
  type AdapterRuns,
  clientPerServerRun,
  type FrameworkVersion,
  installedVersion,
  type MatrixRun,
  type RoleRun,
} from '../adapter-runs.js';

type Client = AiSdkMcpClient & {
  readonly initializeResult: { readonly protocolVersion: string };
  close(): Promise<void>;
};
type CreateClient = (config: { transport: { type: 'http'; url: string } }) => Promise<Client>;
type Tools = Record<
  string,
  {
    execute: (input: unknown, options: unknown) => Promise<unknown>;
    toModelOutput: (o: { output: unknown; input: unknown; toolCallId: string }) => unknown;
  }
>;

/** The consumer-role run; the adapter reads the client's `initializeResult`. */
function roleRun(name: string, version: FrameworkVersion, create: CreateClient): RoleRun {
  return clientPerServerRun(name, version, async (url, _server, dispatcher) => {
    const client = await create({ transport: { type: 'http', url } });
    const tools = (await withS2SP(client, { dispatcher }).tools()) as unknown as Tools;
    return {
      async call(tool, args) {
        const found = tools[tool];
        if (!found) throw new Error(`no tool ${tool}`);
        return found.execute(args, { toolCallId: 'c1', messages: [] });
      },
      close: () => client.close(),
    };
  });
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

/** The matrix run: what reaches the model is the tool's `toModelOutput`. */
function matrixRun(
  name: string,
  version: FrameworkVersion,
  era: McpEra,
  create: CreateClient,
): MatrixRun {
  return {
    name,
    version,
    era,
    async open(urls, s2sp) {
      const clients = {
        weather: await create({ transport: { type: 'http', url: urls.weather } }),
        charts: await create({ transport: { type: 'http', url: urls.charts } }),
      };
      const dispatcher = new S2SPDispatcher();
      const wrap = (client: Client) => (s2sp ? withS2SP(client, { dispatcher }) : client);
      const tools = {
        weather: (await wrap(clients.weather).tools()) as unknown as Tools,
        charts: (await wrap(clients.charts).tools()) as unknown as Tools,
      };
      return {
        revisions: [clients.weather, clients.charts].map(
          (client) => client.initializeResult.protocolVersion,
        ),
        async call(server, tool, args) {
          const found = tools[server][tool];
          if (!found) throw new Error(`no tool ${tool}`);
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

const current = `AI SDK @ai-sdk/mcp ${installedVersion('@ai-sdk/mcp')}`;
const lowest = `AI SDK @ai-sdk/mcp ${installedVersion('@ai-sdk/mcp', 'lowest')}`;

export const runs: AdapterRuns = {
  packages: ['@ai-sdk/mcp'],
  consumerRole: [
    roleRun(current, 'current', aiSdkMcp.createMCPClient),
    roleRun(lowest, 'lowest', lowestAiSdkMcp.createMCPClient),
  ],
  clientMatrix: [
    matrixRun(current, 'current', 'auto', aiSdkMcp.createMCPClient),
    matrixRun(lowest, 'lowest', 'legacy', lowestAiSdkMcp.createMCPClient),
  ],
};
