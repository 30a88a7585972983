/**
 * A minimal MCP client over raw `node:http`, for tests that need what the SDK client does not
 * offer: a chosen local address (to be another client by address), and many sessions cheaply.
 */
import { request } from 'node:http';

/** One JSON-RPC answer (the last `data:` message of an SSE body, or the JSON body). */
export interface RawAnswer {
  readonly status: number;
  readonly sessionId: string | undefined;
  readonly messages: Record<string, unknown>[];
}

/** POSTs one JSON-RPC message to `url` from `localAddress`. */
export function rawPost(
  url: string,
  message: object,
  options: { localAddress?: string; sessionId?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const target = new URL(url);
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        ...(options.localAddress && { localAddress: options.localAddress }),
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...(options.sessionId && { 'mcp-session-id': options.sessionId }),
          ...options.headers,
        },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const messages: Record<string, unknown>[] = [];
          if (String(res.headers['content-type']).includes('text/event-stream')) {
            for (const line of text.split('\n'))
              if (line.startsWith('data: ')) messages.push(JSON.parse(line.slice(6)));
          } else if (text.trim() !== '') {
            messages.push(JSON.parse(text));
          }
          const id = res.headers['mcp-session-id'];
          resolve({
            status: res.statusCode ?? 0,
            sessionId: typeof id === 'string' ? id : undefined,
            messages,
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('raw MCP request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** `initialize` then `notifications/initialized`; the session id, or the failed answer. */
export async function rawSession(
  url: string,
  options: { localAddress?: string; headers?: Record<string, string> } = {},
): Promise<{ sessionId?: string; status: number }> {
  const answer = await rawPost(
    url,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    },
    options,
  );
  if (answer.status !== 200 || !answer.sessionId) return { status: answer.status };
  await rawPost(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { ...options, sessionId: answer.sessionId },
  );
  return { sessionId: answer.sessionId, status: answer.status };
}

let nextId = 1;
/** One `tools/call` in a session: the HTTP status and the JSON-RPC result or error. */
export async function rawCall(
  url: string,
  sessionId: string,
  name: string,
  args: Record<string, unknown> = {},
  options: { localAddress?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; result?: Record<string, unknown>; error?: unknown }> {
  const id = nextId++;
  const answer = await rawPost(
    url,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
    { ...options, sessionId },
  );
  const reply = answer.messages.find((m) => m.id === id);
  return {
    status: answer.status,
    ...(reply?.result !== undefined && { result: reply.result as Record<string, unknown> }),
    ...(reply?.error !== undefined && { error: reply.error }),
  };
}

/** One server-sent event: its id, if any, and its data lines joined. */
export interface SseEvent {
  readonly id?: string;
  readonly data: string;
}

/** Reads SSE events from `response` until `done` says so or the stream ends. */
export async function readEvents(
  response: Response,
  done: (event: SseEvent) => boolean = () => false,
): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const chunk = await reader?.read();
    if (!chunk || chunk.done) return events;
    buffer += chunk.value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      const id = /^id: ?(.*)$/m.exec(block)?.[1];
      const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join('\n');
      const event = { ...(id !== undefined && { id }), data };
      events.push(event);
      if (done(event)) {
        await reader?.cancel();
        return events;
      }
    }
  }
}
