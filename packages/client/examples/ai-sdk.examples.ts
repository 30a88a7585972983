// Type-checked README sample (`pnpm typecheck`); test/readme-examples.test.ts keeps the README
// block identical to the region below.
import type { LanguageModel } from 'ai';

declare const model: LanguageModel;

// #region readme
import { createMCPClient } from '@ai-sdk/mcp';
import { S2SPDispatcher, withS2SP } from '@s2sp/client/ai-sdk';
import { generateText, stepCountIs } from 'ai';

const weather = await createMCPClient({
  transport: { type: 'http', url: 'http://127.0.0.1:3001/mcp' },
});
const charts = await createMCPClient({
  transport: { type: 'http', url: 'http://127.0.0.1:3002/mcp' },
});
const dispatcher = new S2SPDispatcher();
const tools = {
  ...withS2SP(await weather.tools(), { dispatcher }),
  ...withS2SP(await charts.tools(), { dispatcher }),
};
await generateText({
  model,
  tools,
  stopWhen: stepCountIs(5),
  prompt: 'Chart the Texas heat alerts.',
});
// #endregion
