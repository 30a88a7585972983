/**
 * Where a framework keeps no capabilities the adapter can find, it refuses the handle swap
 * (`invalid_config`) instead of sending the rows: checked with objects shaped like the
 * framework's that lack the place the adapter reads, beside ones that have it. The real
 * frameworks are covered against loopback servers in `integration/agents/test/consumer-role.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { withS2SP as aiSdkS2SP } from '../src/ai-sdk.js';
import { S2SPDispatcher } from '../src/dispatcher.js';
import { type MastraTool, withS2SP as mastraS2SP } from '../src/mastra.js';
import { withS2SP as openAiS2SP } from '../src/openai-agents.js';
import { SYNC_RESULT } from './sync-fixture.js';

const CONSUMER = {
  experimental: { s2sp: { version: '0.2', dataPlanePath: '/s2sp/data/', roles: ['consumer'] } },
};
const ERROR_CODE = 's2sp/error-code';

/** A dispatcher holding one handle, and the arguments that pass it on. */
function withHandle() {
  const dispatcher = new S2SPDispatcher();
  const handle = dispatcher.buffer.put(SYNC_RESULT.body);
  return { dispatcher, handle, args: { abstract_data: '[]', resource_url: handle } };
}

describe('AI SDK adapter: capabilities from initializeResult', () => {
  const client = (initializeResult: unknown, calls: unknown[]) => ({
    initializeResult: initializeResult as { capabilities?: unknown } | undefined,
    async tools() {
      const execute = async (input: unknown, _options: unknown) => {
        calls.push(input);
        return 'ok';
      };
      return { summarise: { execute } };
    },
  });

  it.each([
    ['swaps the rows in when it is there', { capabilities: CONSUMER }, undefined, 1],
    ['refuses, keeping the handle, when it is not', undefined, 'invalid_config', 0],
  ])('%s', async (_name, initializeResult, code, sent) => {
    const { dispatcher, handle, args } = withHandle();
    const calls: unknown[] = [];
    const tools = await aiSdkS2SP(client(initializeResult, calls), { dispatcher }).tools();
    const out = (await tools.summarise.execute(args as never, {} as never)) as {
      _meta?: Record<string, unknown>;
    };
    expect(out._meta?.[ERROR_CODE]).toBe(code);
    expect(calls).toHaveLength(sent);
    expect(dispatcher.buffer.has(handle)).toBe(sent === 0);
  });
});

describe('OpenAI Agents adapter: capabilities from the MCP SDK client inside', () => {
  const server = (extra: Record<string, unknown>, calls: unknown[]) => ({
    name: 'mine',
    async callTool(_tool: string, args: Record<string, unknown> | null) {
      calls.push(args);
      return [{ type: 'text', text: 'ok' }];
    },
    ...extra,
  });

  it.each([
    [
      'the SDK classes’ underlying.session',
      { underlying: { session: { getServerCapabilities: () => CONSUMER } } },
    ],
    ['a getServerCapabilities() of your own', { getServerCapabilities: () => CONSUMER }],
  ])('swaps the rows in when it finds %s', async (_name, extra) => {
    const { dispatcher, args } = withHandle();
    const calls: unknown[] = [];
    await openAiS2SP(server(extra, calls), { dispatcher }).callTool('summarise', args);
    expect(calls).toEqual([{ abstract_data: '[]', body_data: '[]' }]);
  });

  it('refuses, keeping the handle, when it finds neither', async () => {
    const { dispatcher, handle, args } = withHandle();
    const calls: unknown[] = [];
    const out = (await openAiS2SP(server({}, calls), { dispatcher }).callTool(
      'summarise',
      args,
    )) as unknown[] & { isError?: boolean; _meta?: Record<string, unknown> };
    expect(out.isError).toBe(true);
    expect(out._meta?.[ERROR_CODE]).toBe('invalid_config');
    expect(calls).toEqual([]);
    expect(dispatcher.buffer.has(handle)).toBe(true);
  });
});

describe('Mastra adapter (0.14): capabilities from the connection’s MCP SDK client', () => {
  const client = (connection: unknown, calls: unknown[]) => ({
    async getToolsets() {
      return {
        summaries: {
          summarise: {
            execute: async (context: unknown) => {
              calls.push(context);
              return 'ok';
            },
          },
        },
      };
    },
    async getTools(): Promise<Record<string, MastraTool>> {
      return {};
    },
    async getConnectedClientForServer() {
      return connection;
    },
  });

  it.each([
    [
      'swaps the rows in when it is there',
      { client: { getServerCapabilities: () => CONSUMER } },
      undefined,
      1,
    ],
    ['refuses, keeping the handle, when it is not', {}, 'invalid_config', 0],
  ])('%s', async (_name, connection, code, sent) => {
    const { dispatcher, handle, args } = withHandle();
    const calls: unknown[] = [];
    const tools = await mastraS2SP(client(connection, calls), { dispatcher }).getTools();
    const execute = tools.summaries_summarise?.execute as (context: unknown) => Promise<unknown>;
    const out = (await execute({ context: args })) as { _meta?: Record<string, unknown> };
    expect(out?._meta?.[ERROR_CODE]).toBe(code);
    expect(calls).toHaveLength(sent);
    expect(dispatcher.buffer.has(handle)).toBe(sent === 0);
  });
});

describe('Mastra adapter (1 and later): the server each tool names, then its connection', () => {
  const client = (connection: unknown, calls: unknown[], serverName: string | undefined) => ({
    async listToolsets(): Promise<Record<string, Record<string, MastraTool>>> {
      return {};
    },
    async listTools(): Promise<Record<string, MastraTool>> {
      return {
        summaries_summarise: {
          ...(serverName !== undefined && { mcpMetadata: { serverName } }),
          execute: async (input: unknown) => {
            calls.push(input);
            return 'ok';
          },
        },
      };
    },
    async getConnectedClientForServer(name: string) {
      return name === 'summaries' ? connection : undefined;
    },
  });

  it.each([
    [
      'swaps the rows in when both are there',
      'summaries',
      { client: { getServerCapabilities: () => CONSUMER } },
      undefined,
      1,
    ],
    [
      'refuses, keeping the handle, without a connection client',
      'summaries',
      {},
      'invalid_config',
      0,
    ],
    [
      'refuses, keeping the handle, when the tool names no server',
      undefined,
      { client: { getServerCapabilities: () => CONSUMER } },
      'invalid_config',
      0,
    ],
  ])('%s', async (_name, serverName, connection, code, sent) => {
    const { dispatcher, handle, args } = withHandle();
    const calls: unknown[] = [];
    const tools = await mastraS2SP(client(connection, calls, serverName), {
      dispatcher,
    }).listTools();
    const execute = tools.summaries_summarise?.execute as (input: unknown) => Promise<unknown>;
    const out = (await execute(args)) as { _meta?: Record<string, unknown> };
    expect(out?._meta?.[ERROR_CODE]).toBe(code);
    expect(calls).toHaveLength(sent);
    expect(dispatcher.buffer.has(handle)).toBe(sent === 0);
  });
});
