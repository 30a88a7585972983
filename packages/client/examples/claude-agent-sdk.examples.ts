// Type-checked README sample (`pnpm typecheck`); scripts/check-readme-examples.mjs keeps the README
// block identical to the region below.

// #region readme
import { type Options, query } from '@anthropic-ai/claude-agent-sdk';
import { withS2SP } from '@s2sp/client/claude-agent-sdk';

const options: Options = {
  mcpServers: {
    weather: { type: 'http', url: 'http://127.0.0.1:3001/mcp' },
    charts: { type: 'http', url: 'http://127.0.0.1:3002/mcp' },
  },
  allowedTools: ['mcp__weather__get_alerts', 'mcp__charts__draw_chart'],
  // Claude Code counts and caps large MCP outputs before hooks run: raise the cap (see below).
  env: { ...process.env, MAX_MCP_OUTPUT_TOKENS: '1000000' },
};
const prompt = 'Chart the Texas heat alerts.';
// The wrapped query reads each server's capabilities from the running query's MCP status.
const s2spQuery = withS2SP(query);
for await (const message of s2spQuery({ prompt, options })) {
  if (message.type === 'result') console.log(message.subtype);
}
// #endregion readme
