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
import { createS2SPToolHooks, S2SPDispatcher } from '../src/langchain.js';
import { FLOOD_IDS, planNextStep } from './agent-model.js';
import { BODY_MARKER, bodyValues, expectedRows, startPipeline } from './pipeline.js';

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

async function runAgent(mode: 'sync' | 'async', adapter = true) {
  const pipeline = await startPipeline();
  const dispatcher = new S2SPDispatcher();
  const client = new MultiServerMCPClient({
    mcpServers: {
      alerts: { url: pipeline.resource.mcpUrl, transport: 'http' },
      summaries: { url: pipeline.consumer.mcpUrl, transport: 'http' },
    },
    ...(adapter ? createS2SPToolHooks({ dispatcher }) : {}),
  });
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
    return { messages, seen: model.seen, received: pipeline.received, pending: dispatcher.pending };
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

describe('control', () => {
  it('without the hooks, a sync body does reach the model (so the check above can fail)', async () => {
    const { seen } = await runAgent('sync', false);
    expect(seen[1]).toContain(BODY_MARKER);
  });
});
