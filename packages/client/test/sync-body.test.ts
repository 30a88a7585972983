// The host declares that it reads a sync result's body from structuredContent (PROTOCOL §7.11):
// withS2SP's `syncBody` rides in `_meta` of every tool call to real loopback S2SP servers, over
// both SDK majors and through the framework adapters that can declare it; the rows then cross
// the wire once, and the model reads what it read before.
import { createMCPClient } from '@ai-sdk/mcp';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { MCPClient } from '@mastra/mcp';
import { MCPServerStreamableHttp } from '@openai/agents';
import { PROTOCOL, S2SPError } from '@s2sp/core';
import { connectSdkClient, runTitle, SDK_CLIENT_RUNS, type SdkClientRun } from '@s2sp/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import * as aiSdk from '../src/ai-sdk.js';
import * as claudeAgentSdk from '../src/claude-agent-sdk.js';
import { S2SPDispatcher } from '../src/dispatcher.js';
import * as langchain from '../src/langchain.js';
import * as mastra from '../src/mastra.js';
import { withS2SP } from '../src/mcp-sdk.js';
import * as openaiAgents from '../src/openai-agents.js';
import { BODY_MARKER, expectedRows, startPipeline, summariseFloods, TABLE } from './pipeline.js';

type Result = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
};

const SYNC = { name: 'get_alerts', arguments: { abstract_domains: 'event', mode: 'sync' } };
const DECLARED = { syncBody: 'structured' } as const;

/** How often `marker` occurs in `text`. */
const count = (text: string, marker: string) => text.split(marker).length - 1;

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/**
 * The `tools/call` requests every client in this process sends from now on (JSON-RPC messages)
 * and the raw text of each answer: the SDK transports post through the global `fetch`.
 */
function recordToolCalls() {
  const sent: { params: { _meta?: Record<string, unknown> } }[] = [];
  const answers: Promise<string>[] = [];
  globalThis.fetch = async (input, init) => {
    const response = await realFetch(input, init);
    if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) {
      sent.push(JSON.parse(init.body));
      answers.push(response.clone().text());
    }
    return response;
  };
  return { sent, answers };
}

/** The text a model reads of a rewritten result, its handle replaced by `ddi://h`. */
function modelText(result: Result): string {
  const text = result.content[0]?.text ?? '';
  const { resource_url } = JSON.parse(text) as { resource_url: string };
  expect(resource_url).toMatch(/^ddi:\/\//);
  return text.replace(resource_url, 'ddi://h');
}

describe.each(SDK_CLIENT_RUNS.map((run) => [runTitle(run), run] as const))(
  'withS2SP syncBody (%s)',
  (_title, run: SdkClientRun) => {
    const connect = async (url: string) => (await connectSdkClient(url, run)).client;

    it('gets the rows once on the wire, shows the model the same text, hands the consumer the rows', async () => {
      await using pipeline = await startPipeline();
      const dispatcher = new S2SPDispatcher();
      const declared = withS2SP(await connect(pipeline.resource.mcpUrl), {
        ...DECLARED,
        dispatcher,
      });
      const undeclared = withS2SP(await connect(pipeline.resource.mcpUrl));
      const consumer = withS2SP(await connect(pipeline.consumer.mcpUrl), { dispatcher });
      try {
        const { sent, answers } = recordToolCalls();
        const seen = (await declared.callTool(SYNC)) as Result;
        const before = (await undeclared.callTool(SYNC)) as Result;
        expect(sent[0]?.params._meta?.[PROTOCOL.syncBodyMeta]).toBe('structured');
        expect(sent[1]?.params._meta?.[PROTOCOL.syncBodyMeta]).toBeUndefined();
        // 12 rows of 3 body values each: once on the wire declared, twice (§2) without.
        const [once, twice] = await Promise.all(answers);
        expect(count(once ?? '', BODY_MARKER)).toBe(3 * TABLE.length);
        expect(count(twice ?? '', BODY_MARKER)).toBe(2 * 3 * TABLE.length);

        expect(JSON.stringify(seen)).not.toContain(BODY_MARKER);
        expect(modelText(seen)).toBe(modelText(before));
        expect(dispatcher.pending).toBe(1);
        const { object, floods, done } = await summariseFloods(consumer, seen.content[0]?.text);
        expect(seen.structuredContent?.resource_url).toBe(object.resource_url);
        expect(done.content[0]?.text).toBe(`summarised ${floods.length} alerts`);
        expect(pipeline.received).toEqual([expectedRows(floods.map((row) => row._row_id))]);
      } finally {
        await declared.close();
        await undeclared.close();
        await consumer.close();
      }
    });

    it('leaves async results as they were', async () => {
      await using pipeline = await startPipeline();
      const client = withS2SP(await connect(pipeline.resource.mcpUrl), DECLARED);
      try {
        const result = (await client.callTool({
          ...SYNC,
          arguments: { abstract_domains: 'event' },
        })) as Result;
        const text = JSON.parse(result.content[0]?.text ?? '') as { resource_url: string };
        expect(text.resource_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//);
        expect(result.structuredContent).toEqual(text);
      } finally {
        await client.close();
      }
    });
  },
);

describe('the framework adapters declare where they read a sync body', () => {
  /** Checks that `dispatcher` holds the whole body behind `handle`, and nothing else. */
  function expectBuffered(dispatcher: S2SPDispatcher, handle: unknown): void {
    expect(handle).toMatch(/^ddi:\/\//);
    expect(dispatcher.pending).toBe(1);
    const body = dispatcher.buffer.take(handle as string) as { _row_id: number }[];
    expect(body.map((row) => row._row_id)).toEqual(TABLE.map((_, i) => i));
    expect(JSON.stringify(body)).toContain(BODY_MARKER);
  }

  it('AI SDK', async () => {
    await using pipeline = await startPipeline();
    // Before the client: its transport keeps the fetch it was made with.
    const { sent } = recordToolCalls();
    const client = await createMCPClient({
      transport: { type: 'http', url: pipeline.resource.mcpUrl },
    });
    try {
      const dispatcher = new S2SPDispatcher();
      const tools = await aiSdk.withS2SP(client, { ...DECLARED, dispatcher }).tools();
      const execute = tools.get_alerts?.execute as (i: unknown, o: unknown) => Promise<Result>;
      const result = await execute(SYNC.arguments, { toolCallId: 'c1', messages: [] });
      expect(sent[0]?.params._meta?.[PROTOCOL.syncBodyMeta]).toBe('structured');
      expect(JSON.stringify(result)).not.toContain(BODY_MARKER);
      expectBuffered(dispatcher, JSON.parse(result.content[0]?.text ?? '').resource_url);
    } finally {
      await client.close();
    }
  });

  it('OpenAI Agents, through callTool and callToolResult', async () => {
    await using pipeline = await startPipeline();
    const bare = new MCPServerStreamableHttp({ name: 'alerts', url: pipeline.resource.mcpUrl });
    await bare.connect();
    try {
      const { sent } = recordToolCalls();
      for (const method of ['callTool', 'callToolResult'] as const) {
        const dispatcher = new S2SPDispatcher();
        const alerts = openaiAgents.withS2SP(bare, { ...DECLARED, dispatcher });
        const out = (await alerts[method]?.('get_alerts', SYNC.arguments)) as unknown;
        const content = (Array.isArray(out) ? out : (out as Result).content) as Result['content'];
        expect(JSON.stringify(out)).not.toContain(BODY_MARKER);
        expectBuffered(dispatcher, JSON.parse(content[0]?.text ?? '').resource_url);
      }
      expect(sent.map((m) => m.params._meta?.[PROTOCOL.syncBodyMeta])).toEqual([
        'structured',
        'structured',
      ]);
    } finally {
      await bare.close();
    }
  });

  it('Mastra (@mastra/mcp 2)', async () => {
    await using pipeline = await startPipeline();
    const bare = new MCPClient({
      id: 's2sp-sync-body',
      servers: { alerts: { url: new URL(pipeline.resource.mcpUrl) } },
    });
    try {
      const { sent } = recordToolCalls();
      const dispatcher = new S2SPDispatcher();
      const tools = await mastra.withS2SP(bare, { ...DECLARED, dispatcher }).listTools();
      const execute = tools.alerts_get_alerts?.execute as (i: unknown) => Promise<unknown>;
      const result = (await execute(SYNC.arguments)) as { resource_url?: unknown };
      expect(sent[0]?.params._meta?.[PROTOCOL.syncBodyMeta]).toBe('structured');
      expect(JSON.stringify(result)).not.toContain(BODY_MARKER);
      expectBuffered(dispatcher, result.resource_url);
    } finally {
      await bare.disconnect();
    }
  });

  it('LangChain and the Claude Agent SDK refuse it: their hooks cannot set _meta', () => {
    const refusedBy = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return S2SPError.isInstance(error) && { code: error.code, data: error.data };
      }
      return 'accepted';
    };
    const refused = { code: 'invalid_config', data: { option: 'syncBody' } };
    expect(refusedBy(() => langchain.withS2SP(MultiServerMCPClient, {}, DECLARED))).toEqual(
      refused,
    );
    const query = () => ({ mcpServerStatus: async () => [] });
    expect(refusedBy(() => claudeAgentSdk.withS2SP(query, DECLARED))).toEqual(refused);
  });
});
