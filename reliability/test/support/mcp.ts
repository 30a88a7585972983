/** Calling MCP tools of an S2SP server in process, through its Hono app (no sockets). */
import type { Hono } from 'hono';

/** The parts of a tool result the tests read. */
export interface InProcessToolResult {
  readonly isError?: boolean;
  readonly content: { type: string; text?: string }[];
  readonly structuredContent?: Record<string, unknown>;
}

let nextId = 1;

/**
 * Sends one JSON-RPC `tools/call` to the server's stateless Streamable HTTP endpoint with
 * `app.request()`, as an MCP client would over HTTP, and returns the tool result.
 *
 * @param app - `server.app`
 * @param url - the request URL; its host is what the server sees as `Host`
 * @param name - tool name
 * @param args - tool arguments
 * @param headers - extra request headers (such as `x-forwarded-host`)
 * @throws Error when the answer is not a JSON-RPC result
 */
export async function callToolInProcess(
  app: Hono,
  url: string,
  name: string,
  args: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<InProcessToolResult> {
  const response = await app.request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
  });
  const text = await response.text();
  const json = JSON.parse(text) as { result?: InProcessToolResult };
  if (!json.result) throw new Error(`tools/call ${name} answered ${response.status}: ${text}`);
  return json.result;
}

/** The first text block of a tool result. */
export function resultText(result: InProcessToolResult): string {
  return result.content.find((block) => block.type === 'text')?.text ?? '';
}
