/**
 * LangChain.js's `MultiServerMCPClient` (`@langchain/mcp-adapters`, on the MCP SDK v1) through
 * `@s2sp/client/langchain`, which reads `getClient(server).getServerCapabilities()`.
 */
import type { ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import * as langchainMcp from '@langchain/mcp-adapters';
import * as lowestLangchainMcp from '@s2sp/agents-lowest/langchain';
import { type LangChainMcpClient, withS2SP } from '@s2sp/client/langchain';
import {
  type AdapterRuns,
  type FrameworkVersion,
  installedVersion,
  type MatrixRun,
  type MatrixServer,
  type RoleRun,
  type RoleServer,
  sessionRun,
} from '../adapter-runs.js';

type Config<TServer extends string> = {
  mcpServers: Record<TServer, { url: string; transport: 'http' }>;
};
type Client = LangChainMcpClient & { getTools(): Promise<unknown[]>; close(): Promise<void> };
type ClientClass = new (config: Config<string>) => Client;

function configFor<TServer extends string>(urls: Record<TServer, string>): Config<TServer> {
  const entries = Object.entries<string>(urls).map(([server, url]) => [
    server,
    { url, transport: 'http' as const },
  ]);
  return { mcpServers: Object.fromEntries(entries) as Config<TServer>['mcpServers'] };
}

/** The consumer-role run: LangChain reports a tool failure by throwing, with the adapter's code. */
function roleRun(name: string, version: FrameworkVersion, Client: ClientClass): RoleRun {
  return sessionRun(name, version, async (urls, dispatcher) => {
    const client = withS2SP(Client, configFor<RoleServer>(urls), { dispatcher });
    const tools = (await client.getTools()) as StructuredToolInterface[];
    return {
      async call(_server, tool, args) {
        const found = tools.find((t) => t.name === tool);
        if (!found) throw new Error(`no tool ${tool}`);
        try {
          return { text: JSON.stringify(await found.invoke(args)), code: undefined };
        } catch (error) {
          return { text: String(error), code: (error as { code?: unknown }).code };
        }
      },
      close: () => client.close(),
    };
  });
}

/** The matrix run: what reaches the model is the `ToolMessage` content. */
function matrixRun(name: string, version: FrameworkVersion, Client: ClientClass): MatrixRun {
  return {
    name,
    version,
    era: 'legacy',
    async open(urls, s2sp) {
      const config = configFor<MatrixServer>(urls);
      const client = s2sp ? withS2SP(Client, config) : new Client(config);
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

const current = `LangChain ${installedVersion('@langchain/mcp-adapters')}`;
const lowest = `LangChain ${installedVersion('@langchain/mcp-adapters', 'lowest')}`;

export const runs: AdapterRuns = {
  packages: ['@langchain/mcp-adapters'],
  consumerRole: [
    roleRun(current, 'current', langchainMcp.MultiServerMCPClient),
    roleRun(lowest, 'lowest', lowestLangchainMcp.MultiServerMCPClient),
  ],
  clientMatrix: [
    matrixRun(current, 'current', langchainMcp.MultiServerMCPClient),
    matrixRun(lowest, 'lowest', lowestLangchainMcp.MultiServerMCPClient),
  ],
};
