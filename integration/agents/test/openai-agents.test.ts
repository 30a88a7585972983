import { Agent, MCPServerStreamableHttp, OpenAIProvider, Runner } from '@openai/agents';
import { S2SPDispatcher, withS2SP } from '@s2sp/client/openai-agents';
import { describeAgentLoop } from './checks.js';
import { startPipeline } from './pipeline.js';
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

describeAgentLoop('OpenAI Agents', runAgent, [
  {
    title: 'covers useStructuredContent: the structured output loses its body too',
    run: () => runAgent({ adapter: true, structured: true }),
  },
]);
