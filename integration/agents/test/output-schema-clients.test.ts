/**
 * `s2sp-proxy` in front of a real npm server whose table tool declares an `outputSchema`
 * (`@modelcontextprotocol/server-memory`'s `read_graph`), and every client here that could check
 * `structuredContent` against it: a client that validates must not reject either the upstream's
 * own result or the S2SP result that replaces it. The proxy lists `anyOf(upstream, S2SP result)`
 * from the first `tools/list`; each client makes a plain call and an S2SP call with what it
 * listed first (one session; the Inspector CLI is one process, and session, per call) and must
 * accept both with the right values.
 *
 * Whether a client validates at all is shown by a control: a server whose tool returns
 * `structuredContent` its own `outputSchema` rejects. What each client does (read from their
 * sources in node_modules):
 *
 * - MCP SDK `Client` (1.32.2): compiles each listed `outputSchema` at `listTools()` (ajv 8 by
 *   default, `@cfworker/json-schema` when given) and rejects a result that fails it in
 *   `callTool()`.
 * - OpenAI Agents (`MCPServerStreamableHttp`, 0.20.0): calls through the SDK v2 `Client`, which
 *   validates the same way; a rejected result reaches the model as the tool's error text, which
 *   since 0.15 is a fixed sentence unless the application passes an `errorFunction`.
 * - Inspector CLI (1.0.3): `tools/list` then `callTool()` on the SDK `Client`, so the same; a
 *   rejected result is an error exit.
 * - AI SDK (`@ai-sdk/mcp` 2.0.99): has its own MCP client and never reads the listed
 *   `outputSchema`. With `schemas: 'automatic'` nothing is validated; with explicit `schemas`, the
 *   `outputSchema` the application passes is used, and a JSON Schema is checked only if the
 *   application gives it a `validate` function — here, the SDK's ajv over the listed schema.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { createMCPClient } from '@ai-sdk/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import {
  Agent,
  type FunctionTool,
  getAllMcpTools,
  MCPServerStreamableHttp,
  RunContext,
} from '@openai/agents';
import { S2SPResultSchema } from '@s2sp/core';
import { createS2SPProxy, type S2SPProxy } from '@s2sp/proxy';
import { silentLogger } from '@s2sp/server';
import { jsonSchema } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWithWarnings } from './adapters/openai-agents.js';

const require = createRequire(import.meta.url);
const run = promisify(execFile);

/** What a client made of one call: the structured result it accepted, or why it refused it. */
type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string };
type Call = (tool: string, args?: Record<string, unknown>) => Promise<Outcome>;
interface Session {
  readonly call: Call;
  close(): Promise<void>;
}
interface Driver {
  readonly name: string;
  /** Whether a result its listed outputSchema rejects is refused (the control). */
  readonly validates: boolean;
  /** Connects, lists the tools once, and returns calls made with what was listed. */
  open(mcpUrl: string, token: string): Promise<Session>;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const refused = (error: unknown): Outcome => ({
  ok: false,
  error: error instanceof Error ? error.message : String(error),
});

function sdkDriver(name: string, validator?: CfWorkerJsonSchemaValidator): Driver {
  return {
    name,
    validates: true,
    async open(mcpUrl, token) {
      const client = new Client(
        { name: 'output-schema-clients', version: '1' },
        validator ? { jsonSchemaValidator: validator } : {},
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcpUrl), {
          requestInit: { headers: bearer(token) },
        }),
      );
      await client.listTools();
      return {
        async call(tool, args = {}) {
          try {
            const result = await client.callTool({ name: tool, arguments: args });
            return { ok: true, value: result.structuredContent };
          } catch (error) {
            return refused(error);
          }
        },
        close: () => client.close(),
      };
    },
  };
}

const openAiAgents: Driver = {
  name: 'OpenAI Agents (MCPServerStreamableHttp, useStructuredContent, strict schemas)',
  validates: true,
  async open(mcpUrl, token) {
    const server = new MCPServerStreamableHttp({
      url: mcpUrl,
      name: 'memory',
      requestInit: { headers: bearer(token) },
      // The tool output is then the structuredContent as JSON, not the text block.
      useStructuredContent: true,
    });
    await server.connect();
    const runContext = new RunContext();
    const { tools, warnings } = await listWithWarnings(
      async () =>
        (await getAllMcpTools({
          mcpServers: [server],
          convertSchemasToStrict: true,
          runContext,
          agent: new Agent({ name: 'output-schema' }),
          // Since 0.15 the model reads only "An error occurred while running the tool" unless
          // the application says what to show; shown here, so the control can tell why it failed.
          errorFunction: ({ error }) => String(error),
        })) as FunctionTool[],
    );
    // The SDK warns (on console.warn, captured) once for each tool it leaves non-strict.
    expect(warnings).toHaveLength(tools.filter((tool) => !tool.strict).length);
    for (const warning of warnings) expect(warning).toMatch(/strict mode/);
    return {
      async call(name, args = {}) {
        const tool = tools.find((t) => t.name === name);
        if (!tool) throw new Error(`no tool ${name}`);
        // A refused result reaches the model as the tool's error text, not as JSON.
        const output = String(await tool.invoke(runContext, JSON.stringify(args)));
        try {
          return { ok: true, value: JSON.parse(output) };
        } catch {
          return { ok: false, error: output };
        }
      },
      close: () => server.close(),
    };
  },
};

const inspectorCli = require.resolve('@modelcontextprotocol/inspector-cli/build/index.js');

const inspector: Driver = {
  name: 'MCP Inspector CLI (@modelcontextprotocol/inspector-cli)',
  validates: true,
  async open(mcpUrl, token) {
    return {
      async call(tool, args = {}) {
        const toolArgs = Object.entries(args).map(([key, value]) => `${key}=${value}`);
        try {
          const { stdout } = await run(
            process.execPath,
            [
              inspectorCli,
              mcpUrl,
              '--transport',
              'http',
              '--header',
              `Authorization: Bearer ${token}`,
              '--method',
              'tools/call',
              '--tool-name',
              tool,
              ...(toolArgs.length > 0 ? ['--tool-arg', ...toolArgs] : []),
            ],
            // 1.0.3 finds its own package.json relative to the working directory.
            { cwd: dirname(inspectorCli) },
          );
          return { ok: true, value: JSON.parse(stdout).structuredContent };
        } catch (error) {
          return refused((error as { stderr?: string }).stderr || error);
        }
      },
      async close() {},
    };
  },
};

type AiSdkTool = { execute: (input: unknown, options: unknown) => Promise<unknown> };

const aiSdkAutomatic: Driver = {
  name: "Vercel AI SDK (@ai-sdk/mcp, schemas: 'automatic')",
  validates: false,
  async open(mcpUrl, token) {
    const client = await createMCPClient({
      transport: { type: 'http', url: mcpUrl, headers: bearer(token) },
    });
    const tools = (await client.tools()) as unknown as Record<string, AiSdkTool>;
    return {
      async call(name, args = {}) {
        try {
          const result = (await tools[name]?.execute(args, { toolCallId: 'c1', messages: [] })) as {
            structuredContent?: unknown;
          };
          return { ok: true, value: result.structuredContent };
        } catch (error) {
          return refused(error);
        }
      },
      close: () => client.close(),
    };
  },
};

const aiSdkTyped: Driver = {
  name: 'Vercel AI SDK (@ai-sdk/mcp, explicit schemas: the listed outputSchema with ajv)',
  validates: true,
  async open(mcpUrl, token) {
    const client = await createMCPClient({
      transport: { type: 'http', url: mcpUrl, headers: bearer(token) },
    });
    // The application's choice: the schemas the server lists, checked with the MCP SDK's ajv.
    const ajv = new AjvJsonSchemaValidator();
    const { tools: listed } = await client.listTools();
    const schemas = Object.fromEntries(
      listed.map((tool) => {
        const outputSchema = tool.outputSchema as Tool['outputSchema'];
        const check = outputSchema ? ajv.getValidator(outputSchema) : undefined;
        return [
          tool.name,
          {
            inputSchema: jsonSchema(tool.inputSchema as Parameters<typeof jsonSchema>[0]),
            ...(outputSchema &&
              check && {
                outputSchema: jsonSchema(outputSchema as Parameters<typeof jsonSchema>[0], {
                  validate: (value: unknown) => {
                    const result = check(value);
                    return result.valid
                      ? { success: true as const, value }
                      : { success: false as const, error: new Error(result.errorMessage) };
                  },
                }),
              }),
          },
        ];
      }),
    );
    const tools = client.toolsFromDefinitions({ tools: listed }, { schemas }) as unknown as Record<
      string,
      AiSdkTool
    >;
    return {
      async call(name, args = {}) {
        try {
          // With an outputSchema, execute returns the (validated) structuredContent itself.
          return {
            ok: true,
            value: await tools[name]?.execute(args, { toolCallId: 'c1', messages: [] }),
          };
        } catch (error) {
          return refused(error);
        }
      },
      close: () => client.close(),
    };
  },
};

const drivers: Driver[] = [
  sdkDriver('MCP SDK Client (ajv, the default)'),
  sdkDriver('MCP SDK Client (@cfworker/json-schema)', new CfWorkerJsonSchemaValidator()),
  openAiAgents,
  inspector,
  aiSdkAutomatic,
  aiSdkTyped,
];

const TOKENS = drivers.map((_, i) => `output-schema-client-${i}-0123456789abcdef`);
const SEED_TOKEN = 'output-schema-seeding-0123456789abcdef';
const PEOPLE = ['Ada', 'Grace', 'Edsger'];

/** A server that lies: its tool's structuredContent fails the outputSchema it lists. */
function startLyingServer(): Promise<{ url: string; server: HttpServer }> {
  const http = createServer(async (req, res) => {
    const mcp = new Server({ name: 'lying', version: '1' }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 'count',
          inputSchema: { type: 'object', properties: {} },
          outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        },
      ],
    }));
    mcp.setRequestHandler(CallToolRequestSchema, () => ({
      content: [{ type: 'text', text: '{"n":"three"}' }],
      structuredContent: { n: 'three' },
    }));
    // Stateless: a server and transport per request.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  return new Promise((resolve) =>
    http.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
        server: http,
      }),
    ),
  );
}

let proxy: S2SPProxy;
let proxyUrl: string;
let lying: { url: string; server: HttpServer };

beforeAll(async () => {
  const memory = join(mkdtempSync(join(tmpdir(), 's2sp-agents-memory-')), 'memory.jsonl');
  proxy = createS2SPProxy({
    upstream: {
      kind: 'stdio',
      command: process.execPath,
      args: [
        join(
          dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
          'dist/index.js',
        ),
      ],
      env: { ...process.env, MEMORY_FILE_PATH: memory } as Record<string, string>,
    },
    auth: { bearerTokens: [...TOKENS, SEED_TOKEN] },
    logger: silentLogger,
    onUpstreamStderr: () => {},
  });
  await proxy.start();
  proxyUrl = (await proxy.listen()).mcpUrl;
  const seed = new Client({ name: 'seed', version: '1' });
  await seed.connect(
    new StreamableHTTPClientTransport(new URL(proxyUrl), {
      requestInit: { headers: bearer(SEED_TOKEN) },
    }),
  );
  const created = await seed.callTool({
    name: 'create_entities',
    arguments: {
      entities: PEOPLE.map((name) => ({
        name,
        entityType: 'person',
        observations: [`${name} wrote programs`],
      })),
    },
  });
  expect(created.isError).toBeFalsy();
  await seed.close();
  lying = await startLyingServer();
});

afterAll(async () => {
  await proxy?.close();
  lying?.server.closeAllConnections();
  await new Promise((resolve) => lying?.server.close(resolve));
});

describe.each(drivers.map((driver, i) => [driver.name, driver, TOKENS[i] as string] as const))(
  '%s',
  (_, driver, token) => {
    it('a plain and an S2SP call of read_graph are both accepted, with their values', async () => {
      const session = await driver.open(proxyUrl, token);
      try {
        const plain = await session.call('read_graph');
        expect(plain).toMatchObject({ ok: true });
        const graph = (plain as { value: { entities: { name: string }[] } }).value;
        expect(graph.entities.map((e) => e.name)).toEqual(PEOPLE);
        // The proxy has learned that read_graph returns a table (for this client): an S2SP call,
        // checked against the schema listed before it knew.
        const split = await session.call('read_graph', { abstract_domains: 'name' });
        expect(split).toMatchObject({ ok: true });
        const result = S2SPResultSchema.parse((split as { value: unknown }).value);
        expect(result.abstract).toEqual(PEOPLE.map((name, _row_id) => ({ _row_id, name })));
        expect(result.body_domains).toEqual(['entityType', 'observations']);
        expect(result.resource_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//);
        // And plain again, in the same session.
        const again = await session.call('read_graph');
        expect((again as { value: { entities: unknown[] } }).value.entities).toHaveLength(3);
      } finally {
        await session.close();
      }
    });

    it(`the control: a result its outputSchema rejects is ${driver.validates ? 'refused' : 'accepted (no validation)'}`, async () => {
      const session = await driver.open(lying.url, token);
      try {
        const outcome = await session.call('count');
        if (driver.validates) {
          expect(outcome.ok).toBe(false);
          expect(outcome.ok ? '' : outcome.error).toMatch(/output ?schema/i);
        } else {
          expect(outcome).toEqual({ ok: true, value: { n: 'three' } });
        }
      } finally {
        await session.close();
      }
    });
  },
);
