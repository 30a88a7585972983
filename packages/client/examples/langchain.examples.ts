// Type-checked README sample (`pnpm typecheck`); scripts/check-readme-examples.mjs keeps the README
// block identical to the region below.

// #region readme
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { withS2SP } from '@s2sp/client/langchain';

// withS2SP builds the client: its hooks read each server's capabilities through it.
const client = withS2SP(MultiServerMCPClient, {
  mcpServers: {
    weather: { url: 'http://127.0.0.1:3001/mcp', transport: 'http' },
    charts: { url: 'http://127.0.0.1:3002/mcp', transport: 'http' },
  },
});
const tools = await client.getTools(); // use with any LangChain / LangGraph agent
console.log(tools.map((tool) => tool.name));
// #endregion readme
