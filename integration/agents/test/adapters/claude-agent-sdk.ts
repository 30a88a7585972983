/**
 * The Claude Agent SDK through `@s2sp/client/claude-agent-sdk`: a real `query()`, whose bundled
 * Claude Code process is the MCP client, driven by the scripted Messages model. The lowest version
 * `@s2sp/client` claims is the current one (0.3.330), so it has no `lowest/` run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { withS2SP } from '@s2sp/client/claude-agent-sdk';
import { type AdapterRuns, installedVersion, type Outcome, type RoleRun } from '../adapter-runs.js';
import { claudeCodeOptions } from '../claude-code.js';
import { startMessagesModel } from '../scripted-model.js';

/**
 * The scenario as one `query()`: the scripted model asks for each step's call in turn, reading
 * the tool results Claude Code hands it, then answers. An outcome is the result text the model
 * read; Claude Code shows it only a denial's text, so no outcome carries a code.
 */
const role: RoleRun = {
  name: `Claude Agent SDK ${installedVersion('@anthropic-ai/claude-agent-sdk')}`,
  version: 'current',
  reportsCode: false,
  async run(urls, dispatcher, steps) {
    const home = mkdtempSync(join(tmpdir(), 's2sp-claude-role-'));
    const toolOf = (step: (typeof steps)[number]) => `mcp__${step.server}__${step.tool}`;
    let read: readonly string[] = [];
    const outcomes = (results: readonly string[]): Outcome[] =>
      results.map((text) => ({ text, code: undefined }));
    await using model = await startMessagesModel({
      planner: (_tools, results) => {
        read = results;
        const step = steps[results.length];
        return step && { tool: toolOf(step), args: step.args(outcomes(results)) };
      },
    });
    const stderr: string[] = [];
    let answer: string | undefined;
    try {
      for await (const message of withS2SP(query, { dispatcher })({
        prompt: 'Summarise the flood warnings.',
        options: claudeCodeOptions({
          home,
          modelUrl: model.url,
          mcpServers: urls,
          allowedTools: steps.map(toolOf),
          maxTurns: steps.length + 3,
          stderr,
        }),
      })) {
        const { type, result } = message as { type: string; result?: string };
        if (type === 'result') answer = result;
      }
    } catch (error) {
      throw new Error(`${String(error)}\n${stderr.join('')}`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    if (answer !== 'Done.') throw new Error(`the query ended with ${String(answer)}`);
    return outcomes(read);
  },
};

export const runs: AdapterRuns = {
  packages: ['@anthropic-ai/claude-agent-sdk'],
  consumerRole: [role],
  clientMatrix: {
    none: 'Claude Code, inside the SDK, is the MCP client and calls tools only when a model asks (see claude-agent-sdk.test.ts)',
  },
};
