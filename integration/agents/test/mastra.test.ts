import { Agent } from '@mastra/core/agent';
import { MCPClient } from '@mastra/mcp';
import { S2SPDispatcher, withS2SP } from '@s2sp/client/mastra';
import { describe, expect, it } from 'vitest';
import {
  expectBodyBypassedModel,
  expectStaleHandleRefused,
  leakedToModel,
  toolResultChars,
} from './checks.js';
import { drawChartCalls, startPipeline } from './pipeline.js';
import { type Script, startChatCompletionsModel } from './scripted-model.js';

let clients = 0;

/** The real Mastra agent loop (`agent.generate`) against a Chat Completions server on loopback. */
async function runAgent(options: { adapter: boolean; script?: Script; toolsets?: boolean }) {
  await using pipeline = await startPipeline();
  await using model = await startChatCompletionsModel(options.script);
  const dispatcher = new S2SPDispatcher();
  // Mastra refuses two live MCPClients with the same configuration unless each has an id.
  const plain = new MCPClient({
    id: `s2sp-test-${++clients}`,
    servers: {
      weather: { url: new URL(pipeline.weatherMcpUrl) },
      charts: { url: new URL(pipeline.chartMcpUrl) },
    },
  });
  const mcp = options.adapter ? withS2SP(plain, { dispatcher }) : plain;
  try {
    const agent = new Agent({
      name: 'Analyst',
      instructions: 'Chart the Texas heat alerts.',
      model: { providerId: 'scripted', modelId: 'scripted-1', url: model.url, apiKey: 'test-key' },
      ...(!options.toolsets && { tools: await mcp.getTools() }),
    });
    const result = await agent.generate('Chart the Texas heat alerts.', {
      maxSteps: 6,
      ...(options.toolsets && { toolsets: await mcp.getToolsets() }),
    });
    return { output: result.text, model, pipeline, pending: dispatcher.pending };
  } finally {
    await plain.disconnect();
  }
}

describe('Mastra agent loop with withS2SP, sync mode', () => {
  it('never shows the model a body value, while chart-consumer receives every one', async () => {
    const { output, model, pipeline, pending } = await runAgent({ adapter: true });
    expect(output).toBe('Done.');
    expect(model.requests).toHaveLength(3);
    expectBodyBypassedModel(model, pipeline);
    expect(pending).toBe(0);
  });

  it('covers getToolsets() passed to generate()', async () => {
    const { output, model, pipeline } = await runAgent({ adapter: true, toolsets: true });
    expect(output).toBe('Done.');
    expectBodyBypassedModel(model, pipeline);
  });

  it('refuses a used handle with the not_found advice, without calling chart-consumer', async () => {
    const { model, pipeline } = await runAgent({ adapter: true, script: { reuseHandle: true } });
    expectStaleHandleRefused(model, pipeline);
  });
});

describe('control', () => {
  it('without withS2SP, body values do reach the model (so the check above can fail)', async () => {
    const { model, pipeline } = await runAgent({ adapter: false });
    expect(leakedToModel(model, pipeline).length).toBeGreaterThan(100);
    expect(toolResultChars(model)).toBeGreaterThan(50_000);
    expect(drawChartCalls(pipeline)[0]?.body_data).toBeUndefined();
  });
});
