/**
 * A scripted "LLM" served on loopback in the wire formats the frameworks speak: the OpenAI Chat
 * Completions API (OpenAI Agents, Mastra) and the Anthropic Messages API (the Claude Agent SDK).
 * It decides from what it reads, as a model would — step 1: ask weather-alerts for the abstract
 * in sync mode; step 2: keep the heat alerts and pass them, with the resource_url it was given,
 * to draw_chart; step 3: answer — and it records every request body it receives.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ABSTRACT_DOMAINS, AREA, KEEP_EVENT } from './pipeline.js';

export interface Script {
  /** After the chart, call draw_chart a second time with the same arguments (a stale handle). */
  readonly reuseHandle?: boolean;
  /** The NWS area to ask for. Default {@link AREA}. */
  readonly area?: string;
  /** Plans every step instead of the weather-and-chart plan (the other members are then unused). */
  readonly planner?: Planner;
}

/** Picks the next call from the tool names offered and the tool results read so far. */
export type Planner = (
  tools: readonly string[],
  results: readonly string[],
) => PlannedCall | undefined;

/** A tool call the scripted model makes. */
export interface PlannedCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

interface S2SPView {
  abstract: { _row_id: number; event?: string }[];
  resource_url?: string;
}

/** Finds the S2SP result in a tool result's text, however deep the framework wrapped it. */
export function findS2SPResult(value: unknown, depth = 0): S2SPView | undefined {
  if (depth > 6) return undefined;
  if (typeof value === 'string') {
    try {
      return findS2SPResult(JSON.parse(value), depth + 1);
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findS2SPResult(item, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const object = value as Record<string, unknown>;
  if (Array.isArray(object.abstract)) return object as unknown as S2SPView;
  for (const key of ['text', 'content', 'output', 'structuredContent', 'result']) {
    const found = findS2SPResult(object[key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The next step, from the tool names offered and the tool results read so far. */
export function plan(
  tools: readonly string[],
  results: readonly string[],
  script: Script,
): PlannedCall | undefined {
  if (script.planner) return script.planner(tools, results);
  const getAlerts = tools.find((name) => name.endsWith('get_alerts'));
  const drawChart = tools.find((name) => name.endsWith('draw_chart'));
  if (!getAlerts || !drawChart) return undefined;
  if (results.length === 0) {
    return {
      tool: getAlerts,
      args: { area: script.area ?? AREA, abstract_domains: ABSTRACT_DOMAINS, mode: 'sync' },
    };
  }
  const limit = script.reuseHandle ? 3 : 2;
  if (results.length >= limit) return undefined;
  const s2sp = findS2SPResult(results[0]);
  // A result it cannot read (cut short, say): the model gives up and answers.
  if (!s2sp) return undefined;
  const kept = s2sp.abstract.filter((row) => String(row.event).includes(KEEP_EVENT));
  // Without an S2SP layer a sync result has no resource_url: the call then carries none.
  const access = s2sp.resource_url === undefined ? {} : { resource_url: s2sp.resource_url };
  return { tool: drawChart, args: { abstract_data: JSON.stringify(kept), ...access } };
}

/** What the scripted model received. */
export interface ModelLog {
  /** Every request body, verbatim. */
  readonly requests: string[];
  /** Every token-counting request body (Anthropic `count_tokens`), verbatim. */
  readonly tokenCounts: string[];
  /** The tool result texts of the last agent-loop request, oldest first. */
  lastResults: string[];
}

export interface ScriptedModel extends ModelLog, AsyncDisposable {
  /** Base URL for the framework (`…/v1` for OpenAI, the origin for Anthropic). */
  readonly url: string;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content ?? '');
  return content
    .map((part: { type?: string; text?: unknown }) =>
      typeof part.text === 'string' ? part.text : JSON.stringify(part),
    )
    .join('');
}

type Handler = (body: Record<string, unknown>, res: ServerResponse, log: ModelLog) => void;

async function serve(path: string, handler: Handler): Promise<ScriptedModel> {
  const log: ModelLog = { requests: [], tokenCounts: [], lastResults: [] };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || !req.url?.startsWith(path)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'not_found', message: `no ${req.url}` } }));
        return;
      }
      if (req.url.includes('/count_tokens')) {
        log.tokenCounts.push(text);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: Math.ceil(text.length / 4) }));
        return;
      }
      log.requests.push(text);
      try {
        handler(JSON.parse(text) as Record<string, unknown>, res, log);
      } catch (error) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', message: String(error) } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return Object.assign(log, {
    url: path.startsWith('/v1/chat') ? `${origin}/v1` : origin,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

function sse(res: ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const { event, data } of events) {
    if (event) res.write(`event: ${event}\n`);
    res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  }
  res.end();
}

/** A scripted model speaking the Chat Completions API at `<url>/chat/completions`. */
export function startChatCompletionsModel(script: Script = {}): Promise<ScriptedModel> {
  let calls = 0;
  return serve('/v1/chat/completions', (body, res, log) => {
    const tools = ((body.tools ?? []) as { function?: { name?: string } }[]).map(
      (tool) => tool.function?.name ?? '',
    );
    const messages = (body.messages ?? []) as { role: string; content?: unknown }[];
    const results = messages.filter((m) => m.role === 'tool').map((m) => textOf(m.content));
    if (tools.length > 0) log.lastResults = results;
    const next = plan(tools, results, script);
    calls++;
    const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    const base = { id: `chatcmpl-${calls}`, created: 0, model: 'scripted' };
    const toolCall = next && {
      id: `call_${calls}`,
      type: 'function',
      function: { name: next.tool, arguments: JSON.stringify(next.args) },
    };
    const finish = next ? 'tool_calls' : 'stop';
    if (body.stream === true) {
      const delta = toolCall
        ? { role: 'assistant', tool_calls: [{ index: 0, ...toolCall }] }
        : { role: 'assistant', content: 'Done.' };
      sse(res, [
        {
          data: {
            ...base,
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta, finish_reason: null }],
          },
        },
        {
          data: {
            ...base,
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta: {}, finish_reason: finish }],
            usage,
          },
        },
        { data: '[DONE]' },
      ]);
      return;
    }
    const message = toolCall
      ? { role: 'assistant', content: null, tool_calls: [toolCall] }
      : { role: 'assistant', content: 'Done.' };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      }),
    );
  });
}

/** A scripted model speaking the Anthropic Messages API at `<url>/v1/messages`. */
export function startMessagesModel(script: Script = {}): Promise<ScriptedModel> {
  let calls = 0;
  return serve('/v1/messages', (body, res, log) => {
    const tools = ((body.tools ?? []) as { name?: string }[]).map((tool) => tool.name ?? '');
    const results: string[] = [];
    for (const message of (body.messages ?? []) as { role: string; content?: unknown }[]) {
      if (message.role !== 'user' || !Array.isArray(message.content)) continue;
      for (const block of message.content as { type?: string; content?: unknown }[])
        if (block.type === 'tool_result') results.push(textOf(block.content));
    }
    const next = plan(tools, results, script);
    if (tools.some((name) => name.endsWith('get_alerts'))) log.lastResults = results;
    calls++;
    const id = `msg_${calls}`;
    const usage = { input_tokens: 1, output_tokens: 1 };
    const block = next
      ? { type: 'tool_use', id: `toolu_${calls}`, name: next.tool, input: next.args }
      : { type: 'text', text: 'Done.' };
    const stopReason = next ? 'tool_use' : 'end_turn';
    const model = typeof body.model === 'string' ? body.model : 'scripted';
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [block],
          stop_reason: stopReason,
          stop_sequence: null,
          usage,
        }),
      );
      return;
    }
    const start = block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
    const delta =
      block.type === 'tool_use'
        ? { type: 'input_json_delta', partial_json: JSON.stringify(next?.args) }
        : { type: 'text_delta', text: 'Done.' };
    sse(res, [
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage,
          },
        },
      },
      {
        event: 'content_block_start',
        data: { type: 'content_block_start', index: 0, content_block: start },
      },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: stopReason, stop_sequence: null },
          usage: { output_tokens: 1 },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  });
}
