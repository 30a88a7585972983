/**
 * Mastra's `MCPClient` (`@mastra/mcp`) through `@s2sp/client/mastra`, which reads the MCP SDK
 * client of each server's connection (`getConnectedClientForServer(name).client`, private): 2.x on
 * the MCP SDK v2 (`auto`, or pinned with the server's `protocolVersion`; tools run as
 * `execute(input, context)`), and 0.14.5 with `@mastra/core` 0.24 on v1 (`execute({ context })`).
 */
import { noopLogger } from '@mastra/core/logger';
import * as mastraMcp from '@mastra/mcp';
import * as lowestMastraMcp from '@s2sp/agents-lowest/mastra';
import { withS2SP } from '@s2sp/client/mastra';
import { type McpEra, MODERN_REVISION } from '@s2sp/test-utils';
import {
  type AdapterRuns,
  codeIn,
  installedVersion,
  type MatrixRun,
  ROLE_SERVERS,
  type RoleServer,
  sessionRun,
} from '../adapter-runs.js';

let clients = 0;
/** Mastra refuses two live MCPClients with the same configuration unless each has an id. */
const nextId = () => `s2sp-adapter-run-${++clients}`;

const current = `Mastra ${installedVersion('@mastra/mcp')}`;
const lowest = `Mastra ${installedVersion('@mastra/mcp', 'lowest')}`;

const roleServers = (urls: Record<RoleServer, string>, extra: object = {}) =>
  Object.fromEntries(
    ROLE_SERVERS.map((server) => [server, { url: new URL(urls[server]), ...extra }]),
  );

/** Mastra 2: `listToolsets()`, tools run as `execute(input, context)`. */
const currentRole = sessionRun(current, 'current', async (urls, dispatcher) => {
  const plain = new mastraMcp.MCPClient({ id: nextId(), servers: roleServers(urls) });
  const toolsets = await withS2SP(plain, { dispatcher }).listToolsets();
  return {
    async call(server, tool, args) {
      const execute = toolsets[server]?.[tool]?.execute;
      if (!execute) throw new Error(`no tool ${server}.${tool}`);
      const result = await execute(args, {} as never);
      return { text: JSON.stringify(result), code: codeIn(result) };
    },
    close: () => plain.disconnect(),
  };
});

/** Mastra 0.24 with `@mastra/mcp` 0.14.5: `getToolsets()`, `execute({ context })`. */
const lowestRole = sessionRun(lowest, 'lowest', async (urls, dispatcher) => {
  const plain = new lowestMastraMcp.MCPClient({ id: nextId(), servers: roleServers(urls) });
  const toolsets = await withS2SP(plain, { dispatcher }).getToolsets();
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
});

/**
 * Mastra 2 in the matrix: `listToolsWithErrors()`, so a server it could not connect to fails the
 * run; what reaches the model is the tool result as JSON.
 */
function currentMatrix(era: McpEra): MatrixRun {
  return {
    name: current,
    version: 'current',
    era,
    async open(urls, s2sp) {
      const protocolVersion = era === 'auto' ? {} : { protocolVersion: era };
      const plain = new mastraMcp.MCPClient({
        id: nextId(),
        servers: {
          weather: { url: new URL(urls.weather), ...protocolVersion },
          charts: { url: new URL(urls.charts), ...protocolVersion },
        },
      });
      // The run reads connection failures from `errors`; Mastra would also log them at length.
      plain.__setLogger(noopLogger);
      const client = s2sp ? withS2SP(plain) : plain;
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

/** Mastra 0.24 with `@mastra/mcp` 0.14.5 in the matrix (MCP SDK v1). */
const lowestMatrix: MatrixRun = {
  name: lowest,
  version: 'lowest',
  era: 'legacy',
  async open(urls, s2sp) {
    const plain = new lowestMastraMcp.MCPClient({
      id: nextId(),
      servers: { weather: { url: new URL(urls.weather) }, charts: { url: new URL(urls.charts) } },
    });
    const client = s2sp ? withS2SP(plain) : plain;
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

export const runs: AdapterRuns = {
  packages: ['@mastra/mcp', '@mastra/core'],
  consumerRole: [currentRole, lowestRole],
  clientMatrix: [currentMatrix('auto'), currentMatrix(MODERN_REVISION), lowestMatrix],
};
