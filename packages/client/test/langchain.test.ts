import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  type ToolMessage,
} from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { describe, expect, it } from 'vitest';
import { S2SPDispatcher, withS2SP } from '../src/langchain.js';
import { FLOOD_IDS, planNextStep } from './agent-model.js';
import { BODY_MARKER, bodyValues, expectedRows, startPipeline } from './pipeline.js';
import { handleIn, SYNC_RESULT } from './sync-fixture.js';

/**
 * The text a model reads from a message's content: content blocks, a string, or — what the
 * adapter makes of a lone text block that has structuredContent beside it — a string holding
 * that block as JSON.
 */
function contentText(message: BaseMessage): string {
  if (typeof message.content === 'string') {
    try {
      const block = JSON.parse(message.content) as { type?: unknown; text?: unknown };
      if (block.type === 'text' && typeof block.text === 'string') return block.text;
    } catch {
      // plain text
    }
    return message.content;
  }
  return message.content
    .map((block) => ('text' in block && typeof block.text === 'string' ? block.text : ''))
    .join('');
}

/**
 * LangChain's fake streaming chat model, scripted to act on what it reads, and recording every
 * message list it is given (the full messages, content blocks and all).
 */
class ScriptedChatModel extends FakeStreamingChatModel {
  readonly seen: string[] = [];
  constructor(private readonly mode: 'sync' | 'async') {
    super({});
  }
  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.seen.push(
      JSON.stringify(
        messages.map((m) => ({
          type: m.type,
          content: m.content,
          additional_kwargs: m.additional_kwargs,
        })),
      ),
    );
    const results = messages.filter((m) => m.type === 'tool').map(contentText);
    const next = planNextStep(results, this.mode);
    const message = next
      ? new AIMessage({
          content: '',
          tool_calls: [
            {
              id: `call-${results.length}`,
              name: next.toolName,
              args: next.args,
              type: 'tool_call',
            },
          ],
        })
      : new AIMessage('Done.');
    return { generations: [{ message, text: contentText(message) }] };
  }
}

async function runAgent(mode: 'sync' | 'async', adapter = true, ownHooks = false) {
  const pipeline = await startPipeline();
  const dispatcher = new S2SPDispatcher();
  const seenByOwnHook: string[] = [];
  const config = {
    ...(ownHooks && {
      afterToolCall: ({ result }: { result: unknown }) => {
        seenByOwnHook.push(JSON.stringify(result));
      },
    }),
    mcpServers: {
      alerts: { url: pipeline.resource.mcpUrl, transport: 'http' as const },
      summaries: { url: pipeline.consumer.mcpUrl, transport: 'http' as const },
    },
  };
  const client = adapter
    ? withS2SP(MultiServerMCPClient, config, { dispatcher })
    : new MultiServerMCPClient(config);
  const model = new ScriptedChatModel(mode);
  try {
    const tools: StructuredToolInterface[] = await client.getTools();
    const messages: BaseMessage[] = [new HumanMessage('Summarise the flood warnings.')];
    // The agent loop: ask the model, run the tools it calls, repeat until it answers.
    for (let step = 0; step < 5; step++) {
      const reply = (await model.invoke(messages)) as AIMessage;
      messages.push(reply);
      if (!reply.tool_calls?.length) break;
      for (const call of reply.tool_calls) {
        const tool = tools.find((t) => t.name === call.name);
        if (!tool) throw new Error(`no tool ${call.name}`);
        messages.push((await tool.invoke({ ...call, type: 'tool_call' })) as ToolMessage);
      }
    }
    return {
      messages,
      seen: model.seen,
      received: pipeline.received,
      pending: dispatcher.pending,
      seenByOwnHook,
    };
  } finally {
    await client.close();
    await pipeline[Symbol.asyncDispose]();
  }
}

describe.each(['sync', 'async'] as const)('LangChain.js agent loop, %s mode', (mode) => {
  it('never shows the model a body value, while the consumer receives every one', async () => {
    const { messages, seen, received, pending } = await runAgent(mode);
    expect(contentText(messages.at(-1) as BaseMessage)).toBe('Done.');
    expect(seen).toHaveLength(3);
    expect(seen[1]).toContain('Flood Warning');
    for (const prompt of seen) expect(prompt).not.toContain(BODY_MARKER);
    expect(received).toHaveLength(1);
    expect(received[0]).toEqual(expectedRows(FLOOD_IDS));
    const delivered = JSON.stringify(received[0]);
    for (const value of bodyValues(FLOOD_IDS)) expect(delivered).toContain(value);
    expect(pending).toBe(0);
    expect(seen[2]).toContain(`summarised ${FLOOD_IDS.length} alerts`);
  });
});

describe('LangChain.js agent loop with hooks of your own', () => {
  it('runs your afterToolCall on the rewritten result only', async () => {
    const { seen, received, seenByOwnHook } = await runAgent('sync', true, true);
    for (const prompt of seen) expect(prompt).not.toContain(BODY_MARKER);
    expect(received[0]).toEqual(expectedRows(FLOOD_IDS));
    expect(seenByOwnHook).toHaveLength(2);
    for (const result of seenByOwnHook) expect(result).not.toContain(BODY_MARKER);
  });
});

describe('what an S2SP result turns into in LangChain', () => {
  async function callGetAlerts(adapter: boolean, mode: 'async' | 'sync') {
    await using pipeline = await startPipeline();
    const config = {
      mcpServers: { alerts: { url: pipeline.resource.mcpUrl, transport: 'http' as const } },
    };
    const client = adapter
      ? withS2SP(MultiServerMCPClient, config)
      : new MultiServerMCPClient(config);
    try {
      const [tool] = (await client.getTools()) as StructuredToolInterface[];
      const args = { abstract_domains: 'event,severity', mode };
      const message = (await tool?.invoke({
        id: 'call-1',
        name: 'get_alerts',
        args,
        type: 'tool_call',
      })) as ToolMessage;
      return { message, direct: await tool?.invoke(args) };
    } finally {
      await client.close();
    }
  }

  it('with withS2SP, the model reads the result once; the artifact keeps structuredContent', async () => {
    const plain = await callGetAlerts(false, 'async');
    const ours = await callGetAlerts(true, 'async');
    // Without the adapter the lone text block travels with its structuredContent as JSON text.
    const plainChars = JSON.stringify(plain.message.content).length;
    const ourChars = (ours.message.content as string).length;
    expect(typeof ours.message.content).toBe('string');
    expect(plainChars).toBeGreaterThan(ourChars * 1.8);
    const text = ours.message.content as string;
    const structured = JSON.parse(text) as { resource_url: string };
    const artifact = (ours.message.artifact as { type: string; data?: unknown }[]).find(
      (a) => a.type === 'mcp_structured_content',
    );
    const data = (artifact?.data ?? {}) as { total_rows?: number };
    expect(data.total_rows).toBe(12);
    expect(Object.keys(data)).toEqual(Object.keys(structured));
    // invoke() with plain arguments gives the content alone, the same text.
    expect(typeof ours.direct).toBe('string');
    expect(JSON.parse(ours.direct as string)).toMatchObject({ total_rows: 12 });
  });

  it('in sync mode the artifact carries no body either', async () => {
    const ours = await callGetAlerts(true, 'sync');
    expect(JSON.stringify(ours.message.content)).not.toContain(BODY_MARKER);
    expect(JSON.stringify(ours.message.artifact)).not.toContain(BODY_MARKER);
    expect((ours.message.artifact as { type: string }[]).map((a) => a.type)).toContain(
      'mcp_structured_content',
    );
  });
});

describe('control', () => {
  it('without the hooks, a sync body does reach the model (so the check above can fail)', async () => {
    const { seen } = await runAgent('sync', false);
    expect(seen[1]).toContain(BODY_MARKER);
  });
});

/** Stands in for `MultiServerMCPClient`: keeps the configuration, serves one capability set. */
function recordingClient(capabilities: unknown) {
  return class {
    constructor(readonly config: Record<string, unknown>) {}
    async getClient() {
      return { getServerCapabilities: () => capabilities };
    }
  };
}

type Hook = (input: unknown, state: unknown, runtime: unknown) => Promise<unknown>;

describe('withS2SP (LangChain.js configuration)', () => {
  it('keeps hooks already configured: theirs run first in, and see only the rewritten result', async () => {
    const seen: unknown[] = [];
    const dispatcher = new S2SPDispatcher();
    const { config } = withS2SP(
      recordingClient(undefined),
      {
        beforeToolCall: ({ args }: { args?: unknown }) => ({
          args: { ...(args as object), title: 'mine' },
          headers: { 'x-mine': '1' },
        }),
        afterToolCall: ({ result }: { result: unknown }) => {
          seen.push(result);
          return undefined;
        },
      },
      { dispatcher },
    );
    const state = {};
    const runtime = {};
    const after = await (config.afterToolCall as Hook)(
      {
        name: 'get_alerts',
        serverName: 'alerts',
        args: {},
        result: [JSON.stringify(SYNC_RESULT), []],
      },
      state,
      runtime,
    );
    expect(JSON.stringify(seen)).not.toContain(BODY_MARKER);
    expect(JSON.stringify(after)).not.toContain(BODY_MARKER);
    const handle = handleIn(JSON.stringify(after));
    const before = await (config.beforeToolCall as Hook)(
      {
        name: 'summarise',
        serverName: 'summaries',
        args: { abstract_data: '[]', resource_url: handle },
      },
      state,
      runtime,
    );
    expect(before).toEqual({
      headers: { 'x-mine': '1' },
      args: { abstract_data: '[]', title: 'mine', body_data: '[]', resource_url: undefined },
    });
  });

  it('throws forbidden, code intact, for a server without the consumer role; the handle stays', async () => {
    const dispatcher = new S2SPDispatcher();
    const handle = dispatcher.buffer.put(SYNC_RESULT.body);
    const roles = (list: string[]) => ({
      experimental: { s2sp: { version: '0.2', dataPlanePath: '/s2sp/data/', roles: list } },
    });
    const request = {
      name: 'get_alerts',
      serverName: 'alerts',
      args: { abstract_data: '[]', resource_url: handle },
    };
    const refusing = withS2SP(recordingClient(roles(['resource'])), {}, { dispatcher });
    const error = await (refusing.config.beforeToolCall as Hook)(request, {}, {}).catch(
      (e: unknown) => e,
    );
    expect((error as { code?: unknown }).code).toBe('forbidden');
    // LangChain's adapter passes a ToolException through as it is, instead of re-wrapping it.
    expect((error as { name?: unknown }).name).toBe('ToolException');
    expect(dispatcher.buffer.has(handle)).toBe(true);
    const taking = withS2SP(recordingClient(roles(['consumer'])), {}, { dispatcher });
    const swapped = (await (taking.config.beforeToolCall as Hook)(request, {}, {})) as {
      args: Record<string, unknown>;
    };
    expect(swapped.args.body_data).toBe('[]');
  });
});
