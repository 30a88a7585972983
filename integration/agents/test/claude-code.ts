/**
 * The `query()` options every Claude Agent SDK run here uses: the Claude Code process the SDK
 * ships talks to a scripted Messages model through `ANTHROPIC_BASE_URL`, from a home of its own,
 * with only the given MCP servers (over HTTP) and tools, and no other traffic.
 */
import { join } from 'node:path';
import type { Options } from '@anthropic-ai/claude-agent-sdk';

/** What a run chooses of its {@link claudeCodeOptions}. */
export interface ClaudeCodeRun {
  /** A fresh directory: the working directory, `HOME` and the config directory's parent. */
  readonly home: string;
  /** The scripted model's URL. */
  readonly modelUrl: string;
  /** The MCP servers by name, each a Streamable HTTP URL. */
  readonly mcpServers: Record<string, string>;
  /** The `mcp__server__tool` names the model may call. */
  readonly allowedTools: readonly string[];
  readonly maxTurns: number;
  /** Collects the process's stderr, for the error when a run fails. */
  readonly stderr: string[];
  /** `default` keeps Claude Code's own MCP output limit (see below). */
  readonly outputLimit?: 'default';
}

/** The options of a run; see {@link ClaudeCodeRun}. */
export function claudeCodeOptions(run: ClaudeCodeRun): Options {
  return {
    cwd: run.home,
    model: 'claude-scripted',
    maxTurns: run.maxTurns,
    tools: [],
    allowedTools: [...run.allowedTools],
    mcpServers: Object.fromEntries(
      Object.entries(run.mcpServers).map(([name, url]) => [name, { type: 'http' as const, url }]),
    ),
    strictMcpConfig: true,
    settingSources: [],
    persistSession: false,
    stderr: (data) => run.stderr.push(data),
    env: {
      PATH: process.env.PATH,
      HOME: run.home,
      CLAUDE_CONFIG_DIR: join(run.home, '.claude'),
      ANTHROPIC_BASE_URL: run.modelUrl,
      ANTHROPIC_API_KEY: 'test-key',
      // Nothing but the model API: no telemetry, updates, error reports or other traffic.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      // As the README advises for sync mode: above its default limit Claude Code sends a large
      // MCP output to count_tokens before PostToolUse hooks run, and truncates it.
      ...(run.outputLimit !== 'default' && { MAX_MCP_OUTPUT_TOKENS: '1000000' }),
    },
  };
}
