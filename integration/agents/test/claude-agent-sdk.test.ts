import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { S2SPDispatcher, withS2SP } from '@s2sp/client/claude-agent-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import {
  allFragments,
  expectBodyBypassedModel,
  expectStaleHandleRefused,
  leakedToModel,
  toolResultChars,
} from './checks.js';
import { claudeCodeOptions } from './claude-code.js';
import { drawChartCalls, leaked, startPipeline } from './pipeline.js';
import { type Script, startMessagesModel } from './scripted-model.js';

const home = mkdtempSync(join(tmpdir(), 's2sp-claude-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/**
 * The real Claude Agent SDK loop: `query()` runs the Claude Code process the SDK ships, which
 * talks to the scripted Messages API server through ANTHROPIC_BASE_URL.
 */
async function runAgent(options: { adapter: boolean; script?: Script; outputLimit?: 'default' }) {
  await using pipeline = await startPipeline(options.script?.area);
  await using model = await startMessagesModel(options.script);
  const dispatcher = new S2SPDispatcher();
  const stderr: string[] = [];
  const base = claudeCodeOptions({
    home,
    modelUrl: model.url,
    mcpServers: { weather: pipeline.weatherMcpUrl, charts: pipeline.chartMcpUrl },
    allowedTools: ['mcp__weather__get_alerts', 'mcp__charts__draw_chart'],
    maxTurns: 6,
    stderr,
    ...(options.outputLimit && { outputLimit: options.outputLimit }),
  });
  const messages: { type: string; subtype?: string; result?: string }[] = [];
  try {
    const run = options.adapter ? withS2SP(query, { dispatcher }) : query;
    for await (const message of run({ prompt: 'Chart the Texas heat alerts.', options: base }))
      messages.push(message as (typeof messages)[number]);
  } catch (error) {
    throw new Error(`${String(error)}\n${stderr.join('')}`);
  }
  const result = messages.find((m) => m.type === 'result');
  return { result, model, pipeline, pending: dispatcher.pending, messages };
}

describe('Claude Agent SDK agent loop with withS2SP, sync mode', () => {
  it('never shows the model a body value, while chart-consumer receives every one', async () => {
    const { result, model, pipeline, pending } = await runAgent({ adapter: true });
    expect(result?.subtype).toBe('success');
    expect(result?.result).toBe('Done.');
    expectBodyBypassedModel(model, pipeline);
    expect(pending).toBe(0);
    expect(model.tokenCounts.flatMap((r) => leaked(r, allFragments(pipeline)))).toEqual([]);
  });

  it('with the default MCP output limit, Claude Code counts the raw output with the API first', async () => {
    // A limit of the SDK, not the adapter: no hook runs before this count. The model still
    // never reads a body value; only the token-counting request carries it.
    const { model, pipeline } = await runAgent({ adapter: true, outputLimit: 'default' });
    expectBodyBypassedModel(model, pipeline);
    const counted = model.tokenCounts.flatMap((r) => leaked(r, allFragments(pipeline)));
    expect(counted.length).toBeGreaterThan(100);
  });

  it('refuses a used handle with the not_found advice, without calling chart-consumer', async () => {
    const { model, pipeline } = await runAgent({ adapter: true, script: { reuseHandle: true } });
    expectStaleHandleRefused(model, pipeline);
  });
});

describe('control', () => {
  it('without withS2SP, body values do reach the model (so the check above can fail)', async () => {
    // Claude Code keeps a tool result above ~50K characters out of the conversation (a file and
    // a 2 KB preview the model would read with its Read tool); the 6 California alerts fit
    // within that, so they show what any sync result the model reads whole carries.
    const { model, pipeline } = await runAgent({ adapter: false, script: { area: 'CA' } });
    expect(leakedToModel(model, pipeline).length).toBeGreaterThan(100);
    expect(toolResultChars(model)).toBeGreaterThan(20_000);
    expect(drawChartCalls(pipeline)[0]?.body_data).toBeUndefined();
  });
});
