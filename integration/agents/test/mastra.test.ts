import { Agent } from '@mastra/core/agent';
import { noopLogger } from '@mastra/core/logger';
import { MCPClient } from '@mastra/mcp';
import { S2SPDispatcher, withS2SP } from '@s2sp/client/mastra';
import { expect } from 'vitest';
import { describeAgentLoop } from './checks.js';
import { startPipeline } from './pipeline.js';
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
  // Mastra's MCP client logs a tool call's error on the console (ConsoleLogger): the control's
  // draw_chart call, which gets rows without their body, fails by design. Captured and asserted
  // here instead of printed in a passing run.
  const errors: string[] = [];
  plain.__setLogger({ ...noopLogger, error: (message: string) => void errors.push(message) });
  const mcp = options.adapter ? withS2SP(plain, { dispatcher }) : plain;
  try {
    const agent = new Agent({
      id: 'analyst',
      name: 'Analyst',
      instructions: 'Chart the Texas heat alerts.',
      model: { providerId: 'scripted', modelId: 'scripted-1', url: model.url, apiKey: 'test-key' },
      ...(!options.toolsets && { tools: await mcp.listTools() }),
    });
    const result = await agent.generate('Chart the Texas heat alerts.', {
      maxSteps: 6,
      ...(options.toolsets && { toolsets: await mcp.listToolsets() }),
    });
    expect(errors).toEqual(options.adapter ? [] : ['[charts] Error calling tool: draw_chart']);
    return { output: result.text, model, pipeline, pending: dispatcher.pending };
  } finally {
    await plain.disconnect();
  }
}

describeAgentLoop('Mastra', runAgent, [
  {
    title: 'covers listToolsets() passed to generate()',
    run: () => runAgent({ adapter: true, toolsets: true }),
  },
]);
