// Type-checked README sample (`pnpm typecheck`); scripts/check-readme-examples.mjs keeps the README
// block identical to the region below.

// #region readme
import { Agent, MCPServerStreamableHttp, run } from '@openai/agents';
import { S2SPDispatcher, withS2SP } from '@s2sp/client/openai-agents';

const dispatcher = new S2SPDispatcher(); // one per agent, shared by its servers
const weather = withS2SP(new MCPServerStreamableHttp({ url: 'http://127.0.0.1:3001/mcp' }), {
  dispatcher,
});
const charts = withS2SP(new MCPServerStreamableHttp({ url: 'http://127.0.0.1:3002/mcp' }), {
  dispatcher,
});
await weather.connect();
await charts.connect();
const agent = new Agent({
  name: 'Analyst',
  instructions: 'Chart alerts with S2SP sync mode.',
  mcpServers: [weather, charts],
});
const result = await run(agent, 'Chart the Texas heat alerts.');
console.log(result.finalOutput);
// #endregion readme
