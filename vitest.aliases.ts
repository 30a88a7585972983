import { fileURLToPath } from 'node:url';

const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

/**
 * Resolves the workspace packages to their TypeScript sources in tests, so `vitest` needs no
 * build and coverage maps to `src`. The published `dist` is exercised by the packaging test.
 * More specific subpaths come first.
 */
export const sourceAliases: { find: RegExp; replacement: string }[] = [
  { find: /^@s2sp\/core\/testing$/, replacement: src('core/src/testing/index.ts') },
  { find: /^@s2sp\/core$/, replacement: src('core/src/index.ts') },
  { find: /^@s2sp\/client\/ai-sdk$/, replacement: src('client/src/ai-sdk.ts') },
  { find: /^@s2sp\/client\/langchain$/, replacement: src('client/src/langchain.ts') },
  { find: /^@s2sp\/client\/openai-agents$/, replacement: src('client/src/openai-agents.ts') },
  {
    find: /^@s2sp\/client\/claude-agent-sdk$/,
    replacement: src('client/src/claude-agent-sdk.ts'),
  },
  { find: /^@s2sp\/client\/mastra$/, replacement: src('client/src/mastra.ts') },
  { find: /^@s2sp\/client\/node$/, replacement: src('client/src/node.ts') },
  { find: /^@s2sp\/client$/, replacement: src('client/src/index.ts') },
  { find: /^@s2sp\/cache-redis$/, replacement: src('cache-redis/src/index.ts') },
  { find: /^@s2sp\/server\/http$/, replacement: src('server/src/http/index.ts') },
  { find: /^@s2sp\/server$/, replacement: src('server/src/index.ts') },
];
