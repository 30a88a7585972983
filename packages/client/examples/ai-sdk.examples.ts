// Type-checked README sample (`pnpm typecheck`); scripts/check-readme-examples.mjs keeps the README
// block identical to the region below.
import type { LanguageModel } from 'ai';

declare const model: LanguageModel;

// #region readme
import { createMCPClient } from '@ai-sdk/mcp';
import { S2SPDispatcher, withS2SP } from '@s2sp/client/ai-sdk';
import { generateText, stepCountIs } from 'ai';

const dispatcher = new S2SPDispatcher(); // one per agent: handles travel between servers
const weather = withS2SP(
  await createMCPClient({ transport: { type: 'http', url: 'http://127.0.0.1:3001/mcp' } }),
  { dispatcher },
);
const charts = withS2SP(
  await createMCPClient({ transport: { type: 'http', url: 'http://127.0.0.1:3002/mcp' } }),
  { dispatcher },
);
const tools = { ...(await weather.tools()), ...(await charts.tools()) };
await generateText({
  model,
  tools,
  stopWhen: stepCountIs(5),
  prompt: 'Chart the Texas heat alerts.',
});
// #endregion readme
