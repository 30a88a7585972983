import { Agent, MCPServerStreamableHttp, OpenAIProvider, Runner } from '@openai/agents';
import { S2SPDispatcher, withS2SP } from '@s2sp/client/openai-agents';
import { describe, expect, it } from 'vitest';
import {
  expectBodyBypassedModel,
  expectStaleHandleRefused,
  leakedToModel,
  toolResultChars,
} from './checks.js';
import { drawChartCalls, startPipeline } from './pipeline.js';
import { type Script, startChatCompletionsModel } from './scripted-model.js';

/** The real OpenAI Agents loop (`Runner.run`) against a Chat Completions server on loopback. */
async function runAgent(options: { adapter: boolean; script?: Script; structured?: boolean }) {
  await using pipeline = await startPipeline();
  await using model = await startChatCompletionsModel(options.script);
  const dispatcher = new S2SPDispatcher();
  const connect = async (name: string, url: string) => {
    const server = new MCPServerStreamableHttp({
      name,
      url,
      ...(options.structured && { useStructuredContent: true }),
    });
    await server.connect();
    return options.adapter ? withS2SP(server, { dispatcher }) : server;
  };
  const weather = await connect('weather', pipeline.weatherMcpUrl);
  const charts = await connect('charts', pipeline.chartMcpUrl);
  try {
    const agent = new Agent({
      name: 'Analyst',
      instructions: 'Chart the Texas heat alerts.',
      model: 'scripted',
      mcpServers: [weather, charts],
    });
    const runner = new Runner({
      modelProvider: new OpenAIProvider({
        apiKey: 'test-key',
        baseURL: model.url,
        useResponses: false,
      }),
      tracingDisabled: true,
    });
    const result = await runner.run(agent, 'Chart the Texas heat alerts.', { maxTurns: 6 });
    return { output: result.finalOutput, model, pipeline, pending: dispatcher.pending };
  } finally {
    await weather.close();
    await charts.close();
  }
}

describe('OpenAI Agents agent loop with withS2SP, sync mode', () => {
  it('never shows the model a body value, while chart-consumer receives every one', async () => {
    const { output, model, pipeline, pending } = await runAgent({ adapter: true });
    expect(output).toBe('Done.');
    expect(model.requests).toHaveLength(3);
    expectBodyBypassedModel(model, pipeline);
    expect(pending).toBe(0);
  });

  it('covers useStructuredContent: the structured output loses its body too', async () => {
    const { output, model, pipeline } = await runAgent({ adapter: true, structured: true });
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
    // The model had no resource_url to pass, so chart-consumer got no body at all.
    expect(drawChartCalls(pipeline)[0]?.body_data).toBeUndefined();
  });
});
