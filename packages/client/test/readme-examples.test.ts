import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const examples = new URL('../examples/', import.meta.url);
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The `// #region readme` … `// #endregion` part of a type-checked example file. */
function regionOf(file: string): string {
  const text = readFileSync(new URL(file, examples), 'utf8');
  const match = /\/\/ #region readme\n([\s\S]*?)\/\/ #endregion\n/.exec(text);
  if (!match?.[1]) throw new Error(`${file} has no "// #region readme" … "// #endregion" block`);
  return match[1];
}

describe('README code samples', () => {
  const files = readdirSync(examples).filter((file) => file.endsWith('.examples.ts'));

  it('has one type-checked example per adapter', () => {
    expect(files.sort()).toEqual([
      'ai-sdk.examples.ts',
      'claude-agent-sdk.examples.ts',
      'langchain.examples.ts',
      'mastra.examples.ts',
      'mcp-sdk.examples.ts',
      'openai-agents.examples.ts',
    ]);
  });

  it.each(files)('%s appears in the README as written', (file) => {
    expect(readme).toContain(`\`\`\`ts\n${regionOf(file)}\`\`\``);
  });
});
