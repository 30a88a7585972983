/**
 * The MCP SDK `Client` through `withS2SP` from `@s2sp/client`: v1 (current and lowest) and v2 in
 * each era it negotiates.
 */
import * as lowestMcpSdk from '@s2sp/agents-lowest/mcp-sdk';
import { type CallToolCapable, S2SPDispatcher, withS2SP } from '@s2sp/client';
import {
  connectSdkClient,
  type McpEra,
  SDK_CLIENT_RUNS,
  type SdkClientRun,
} from '@s2sp/test-utils';
import {
  type AdapterRuns,
  clientPerServerRun,
  type FrameworkVersion,
  installedVersion,
  type MatrixRun,
  type RoleRun,
} from '../adapter-runs.js';

type Closable = CallToolCapable & { close(): Promise<void> };

/** The consumer-role run over any `Client` that `connect` makes. */
function roleRun<TClient extends Closable>(
  name: string,
  version: FrameworkVersion,
  connect: (url: string) => Promise<TClient>,
): RoleRun {
  return clientPerServerRun(name, version, async (url, _server, dispatcher) => {
    const client = withS2SP(await connect(url), { dispatcher });
    return {
      call: (tool, args) => client.callTool({ name: tool, arguments: args }),
      close: () => client.close(),
    };
  });
}

/** Characters of an MCP tool result as a model reads it: its text blocks. */
function mcpText(result: unknown): string {
  const { content } = result as { content: { type: string; text?: string }[] };
  return content.map((block) => block.text ?? '').join('');
}

/** The matrix run over any `Client` that `connect` makes (with the revision it negotiated). */
function matrixRun<TClient extends Closable>(
  name: string,
  version: FrameworkVersion,
  era: McpEra,
  connect: (url: string) => Promise<{ client: TClient; revision: string | undefined }>,
): MatrixRun {
  return {
    name,
    version,
    era,
    async open(urls, s2sp) {
      const weather = await connect(urls.weather);
      const charts = await connect(urls.charts).catch(async (error: unknown) => {
        await weather.client.close();
        throw error;
      });
      const dispatcher = new S2SPDispatcher();
      const wrap = (client: TClient) => (s2sp ? withS2SP(client, { dispatcher }) : client);
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

const v1Lowest = `MCP SDK v1 Client ${installedVersion('@modelcontextprotocol/sdk', 'lowest')}`;
/** `MCP SDK v2 Client 2.4.0`. */
const title = (run: SdkClientRun) =>
  run.sdk === 1
    ? `MCP SDK v1 Client ${installedVersion('@modelcontextprotocol/sdk')}`
    : `MCP SDK v2 Client ${installedVersion('@modelcontextprotocol/client')}`;

async function connectLowest(url: string) {
  const client = new lowestMcpSdk.Client({ name: 'agent', version: '1' });
  await client.connect(new lowestMcpSdk.StreamableHTTPClientTransport(new URL(url)));
  return client;
}

export const runs: AdapterRuns = {
  packages: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/client'],
  consumerRole: [
    ...SDK_CLIENT_RUNS.map((run) =>
      roleRun(
        `${title(run)}, era ${run.era}`,
        'current',
        async (url) => (await connectSdkClient(url, run)).client,
      ),
    ),
    roleRun(v1Lowest, 'lowest', connectLowest),
  ],
  clientMatrix: [
    ...SDK_CLIENT_RUNS.map((run) =>
      matrixRun(title(run), 'current', run.era, (url) => connectSdkClient(url, run)),
    ),
    matrixRun(v1Lowest, 'lowest', 'legacy', async (url) => ({
      client: await connectLowest(url),
      revision: undefined,
    })),
  ],
};
