// Type-checked README sample (`pnpm typecheck`); scripts/check-readme-examples.mjs keeps the README
// block identical to the region below.
import type { MastraModelConfig } from '@mastra/core/llm';

declare const model: MastraModelConfig;

// #region readme
import { Agent } from '@mastra/core/agent';
import { MCPClient } from '@mastra/mcp';
import { withS2SP } from '@s2sp/client/mastra';

const mcp = withS2SP(
  new MCPClient({
    servers: {
      weather: { url: new URL('http://127.0.0.1:3001/mcp') },
      charts: { url: new URL('http://127.0.0.1:3002/mcp') },
    },
  }),
);
const agent = new Agent({
  id: 'analyst',
  name: 'Analyst',
  instructions: 'Chart alerts with S2SP sync mode.',
  model,
  tools: await mcp.listTools(), // or: agent.generate(prompt, { toolsets: await mcp.listToolsets() })
});
const result = await agent.generate('Chart the Texas heat alerts.');
console.log(result.text);
// #endregion readme
