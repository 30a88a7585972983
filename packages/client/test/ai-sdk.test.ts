import { createMCPClient } from '@ai-sdk/mcp';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { S2SPDispatcher, withS2SP } from '../src/ai-sdk.js';
import { FLOOD_IDS, planNextStep } from './agent-model.js';
import { BODY_MARKER, bodyValues, expectedRows, startPipeline } from './pipeline.js';

type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];

/** The texts of the tool results in a prompt, oldest first, as the model receives them. */
function toolResultTexts(prompt: CallOptions['prompt']): string[] {
  const texts: string[] = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const output = part.output;
      if (output.type === 'text' || output.type === 'error-text') texts.push(output.value);
      else if (output.type === 'json' || output.type === 'error-json')
        texts.push(JSON.stringify(output.value));
      else if (output.type === 'content')
        texts.push(output.value.map((v) => (v.type === 'text' ? v.text : '')).join(''));
    }
  }
  return texts;
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

async function runAgent(mode: 'sync' | 'async', adapter = true) {
  const pipeline = await startPipeline();
  const weather = await createMCPClient({
    transport: { type: 'http', url: pipeline.resource.mcpUrl },
  });
  const summaries = await createMCPClient({
    transport: { type: 'http', url: pipeline.consumer.mcpUrl },
  });
  const dispatcher = new S2SPDispatcher();
  const wrap = <T extends Parameters<typeof withS2SP>[0]>(client: T): T =>
    adapter ? withS2SP(client, { dispatcher }) : client;
  const tools = { ...(await wrap(weather).tools()), ...(await wrap(summaries).tools()) };
  let calls = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const next = planNextStep(toolResultTexts(options.prompt), mode);
      calls++;
      return next
        ? {
            content: [
              {
                type: 'tool-call',
                toolCallId: `call-${calls}`,
                toolName: next.toolName,
                input: JSON.stringify(next.args),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          }
        : {
            content: [{ type: 'text', text: 'Done.' }],
            finishReason: { unified: 'stop', raw: undefined },
            usage,
            warnings: [],
          };
    },
  });
  try {
    const result = await generateText({
      model,
      tools,
      stopWhen: stepCountIs(5),
      prompt: 'Summarise the flood warnings.',
    });
    return {
      result,
      prompts: model.doGenerateCalls.map((call) => JSON.stringify(call.prompt)),
      received: pipeline.received,
      pending: dispatcher.pending,
    };
  } finally {
    await weather.close();
    await summaries.close();
    await pipeline[Symbol.asyncDispose]();
  }
}

describe.each(['sync', 'async'] as const)('Vercel AI SDK agent loop, %s mode', (mode) => {
  it('never shows the model a body value, while the consumer receives every one', async () => {
    const { result, prompts, received, pending } = await runAgent(mode);
    expect(result.text).toBe('Done.');
    expect(result.steps).toHaveLength(3);
    expect(prompts).toHaveLength(3);
    // The model saw the abstract (it chose rows from it)…
    expect(prompts[1]).toContain('Flood Warning');
    // …and never any body value, in any step.
    for (const prompt of prompts) expect(prompt).not.toContain(BODY_MARKER);
    expect(received).toHaveLength(1);
    expect(received[0]).toEqual(expectedRows(FLOOD_IDS));
    const delivered = JSON.stringify(received[0]);
    for (const value of bodyValues(FLOOD_IDS)) expect(delivered).toContain(value);
    expect(pending).toBe(0);
    expect(prompts[2]).toContain(`summarised ${FLOOD_IDS.length} alerts`);
  });
});

describe('control', () => {
  it('without withS2SP, a sync body does reach the model (so the check above can fail)', async () => {
    const { prompts } = await runAgent('sync', false);
    expect(prompts[1]).toContain(BODY_MARKER);
  });
});
