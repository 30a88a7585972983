import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'ai-sdk': 'src/ai-sdk.ts',
    langchain: 'src/langchain.ts',
    'openai-agents': 'src/openai-agents.ts',
    'claude-agent-sdk': 'src/claude-agent-sdk.ts',
    mastra: 'src/mastra.ts',
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
