import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import {
  type McpServerStatusRow,
  S2SPDispatcher,
  s2spHooks,
  withS2SP,
} from '../src/claude-agent-sdk.js';
import { BODY_MARKER } from './pipeline.js';
import { handleIn, SYNC_RESULT } from './sync-fixture.js';

const signal = new AbortController().signal;

/** Two servers as `query.mcpServerStatus()` reports them, with their S2SP roles. */
const STATUS: McpServerStatusRow[] = [
  { name: 'weather', roles: ['resource'] },
  { name: 'charts', roles: ['consumer'] },
].map(({ name, roles }) => ({
  name,
  status: 'connected',
  capabilities: { experimental: { s2sp: { version: '0.2', dataPlanePath: '/s2sp/data/', roles } } },
}));

function hooksOf(dispatcher: S2SPDispatcher, status: McpServerStatusRow[] = STATUS) {
  const { PreToolUse, PostToolUse } = s2spHooks({
    dispatcher,
    mcpServerStatus: async () => status,
  });
  const pre = PreToolUse.hooks[0];
  const post = PostToolUse.hooks[0];
  if (!pre || !post) throw new Error('missing hook');
  return { pre, post };
}

describe('s2spHooks (Claude Agent SDK)', () => {
  it('PostToolUse replaces an MCP output (string or blocks) with the body-less result', async () => {
    const dispatcher = new S2SPDispatcher();
    const { post } = hooksOf(dispatcher);
    for (const tool_response of [
      JSON.stringify(SYNC_RESULT),
      [{ type: 'text', text: JSON.stringify(SYNC_RESULT) }],
    ]) {
      const out = (await post(
        { hook_event_name: 'PostToolUse', tool_name: 'mcp__weather__get_alerts', tool_response },
        'toolu_1',
        { signal },
      )) as { hookSpecificOutput: { hookEventName: string; updatedMCPToolOutput: unknown } };
      expect(out.hookSpecificOutput.hookEventName).toBe('PostToolUse');
      const replaced = JSON.stringify(out.hookSpecificOutput.updatedMCPToolOutput);
      expect(replaced).not.toContain(BODY_MARKER);
      expect(replaced).toContain('Heat');
      expect(Array.isArray(out.hookSpecificOutput.updatedMCPToolOutput)).toBe(
        Array.isArray(tool_response),
      );
    }
    expect(dispatcher.pending).toBe(2);
  });

  it('PreToolUse swaps the handle for body_data once, then denies a stale handle', async () => {
    const dispatcher = new S2SPDispatcher();
    const { pre, post } = hooksOf(dispatcher);
    const stripped = (await post(
      {
        hook_event_name: 'PostToolUse',
        tool_name: 'mcp__weather__get_alerts',
        tool_response: JSON.stringify(SYNC_RESULT),
      },
      'toolu_1',
      { signal },
    )) as { hookSpecificOutput: { updatedMCPToolOutput: string } };
    const handle = handleIn(stripped.hookSpecificOutput.updatedMCPToolOutput);
    const input = {
      hook_event_name: 'PreToolUse',
      tool_name: 'mcp__charts__draw_chart',
      tool_input: { abstract_data: '[{"_row_id":1}]', resource_url: handle },
    };
    const first = (await pre(input, 'toolu_2', { signal })) as {
      hookSpecificOutput: { updatedInput: Record<string, unknown>; permissionDecision?: string };
    };
    expect(first.hookSpecificOutput.updatedInput).toEqual({
      abstract_data: '[{"_row_id":1}]',
      body_data: JSON.stringify([SYNC_RESULT.body[1]]),
    });
    // Permission stays with the user's settings: the hook only changes the input.
    expect(first.hookSpecificOutput.permissionDecision).toBeUndefined();
    const second = (await pre(input, 'toolu_3', { signal })) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(second.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(second.hookSpecificOutput.permissionDecisionReason).toContain('ddi://');
  });

  it('denies a handle for a server not reported as connected, and keeps the handle', async () => {
    const codes: string[] = [];
    const dispatcher = new S2SPDispatcher({ onRefusal: ({ error }) => codes.push(error.code) });
    const reported = [{ name: 'charts', status: 'pending' }, ...STATUS.slice(0, 1)];
    const { pre } = hooksOf(dispatcher, reported);
    const handle = dispatcher.buffer.put(SYNC_RESULT.body);
    for (const tool_name of ['mcp__charts__draw_chart', 'mcp__other__draw_chart']) {
      const out = (await pre(
        {
          hook_event_name: 'PreToolUse',
          tool_name,
          tool_input: { abstract_data: '[]', resource_url: handle },
        },
        'toolu_1',
        { signal },
      )) as { hookSpecificOutput: { permissionDecision: string } };
      expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    }
    expect(codes).toEqual(['unavailable', 'unavailable']);
    expect(dispatcher.buffer.has(handle)).toBe(true);
  });

  it('swaps the rows in for a connected server that declares no capabilities', async () => {
    const dispatcher = new S2SPDispatcher();
    const { pre } = hooksOf(dispatcher, [{ name: 'plain', status: 'connected' }]);
    const handle = dispatcher.buffer.put(SYNC_RESULT.body);
    const out = (await pre(
      {
        hook_event_name: 'PreToolUse',
        tool_name: 'mcp__plain__summarise',
        tool_input: { abstract_data: '[]', resource_url: handle },
      },
      'toolu_1',
      { signal },
    )) as { hookSpecificOutput: { updatedInput?: Record<string, unknown> } };
    expect(out.hookSpecificOutput.updatedInput?.body_data).toBe('[]');
  });

  it('finds the server by mcp_server.name, as the SDK reports it, before the tool name', async () => {
    const codes: string[] = [];
    const dispatcher = new S2SPDispatcher({ onRefusal: ({ error }) => codes.push(error.code) });
    const { pre } = hooksOf(dispatcher);
    const handle = dispatcher.buffer.put(SYNC_RESULT.body);
    const input = (server: string) => ({
      hook_event_name: 'PreToolUse',
      tool_name: 'mcp__charts__draw_chart',
      tool_input: { abstract_data: '[]', resource_url: handle },
      mcp_server: { name: server },
    });
    const refused = (await pre(input('weather'), 'a', { signal })) as {
      hookSpecificOutput: { permissionDecision?: string };
    };
    expect(refused.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(codes).toEqual(['forbidden']);
    const allowed = (await pre(input('charts'), 'b', { signal })) as {
      hookSpecificOutput: { updatedInput?: Record<string, unknown> };
    };
    expect(allowed.hookSpecificOutput.updatedInput?.body_data).toBe('[]');
  });

  it('leaves built-in tools, non-S2SP output and plain arguments alone', async () => {
    const { pre, post } = hooksOf(new S2SPDispatcher());
    const response = JSON.stringify(SYNC_RESULT);
    expect(
      await post(
        { hook_event_name: 'PostToolUse', tool_name: 'Read', tool_response: response },
        'a',
        {
          signal,
        },
      ),
    ).toEqual({});
    expect(
      await post(
        { hook_event_name: 'PostToolUse', tool_name: 'mcp__x__y', tool_response: 'plain text' },
        'b',
        { signal },
      ),
    ).toEqual({});
    expect(
      await pre(
        { hook_event_name: 'PreToolUse', tool_name: 'mcp__x__y', tool_input: { area: 'TX' } },
        'c',
        { signal },
      ),
    ).toEqual({});
  });
});

describe('withS2SP (Claude Agent SDK query)', () => {
  it('adds the hooks and keeps the options and hooks already there', () => {
    const mine = async () => ({});
    const options: Options = {
      model: 'claude-x',
      hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [mine] }] },
    };
    const calls: { prompt: string; options?: Options }[] = [];
    const query = (params: { prompt: string; options?: Options }) => {
      calls.push(params);
      return { mcpServerStatus: async () => STATUS };
    };
    withS2SP(query)({ prompt: 'hi', options });
    const wrapped = calls[0]?.options ?? {};
    expect(calls[0]?.prompt).toBe('hi');
    expect(wrapped.model).toBe('claude-x');
    expect(wrapped.hooks?.PostToolUse).toHaveLength(2);
    expect(wrapped.hooks?.PostToolUse?.[0]?.hooks[0]).toBe(mine);
    expect(wrapped.hooks?.PreToolUse).toHaveLength(1);
    // The caller's object is not changed.
    expect(options.hooks?.PostToolUse).toHaveLength(1);
    expect(options.hooks?.PreToolUse).toBeUndefined();
  });
});
