// JSON-RPC batches on the MCP endpoint are capped: a batch over the limit runs
// nothing; one within it runs every message.
import { describe, expect, it } from 'vitest';
import { createS2SPServer, silentLogger } from '../src/index.js';

function server(maxMcpBatchSize?: number) {
  let calls = 0;
  const s = createS2SPServer({
    name: 'batch',
    version: '1',
    logger: silentLogger,
    ...(maxMcpBatchSize !== undefined && { maxMcpBatchSize }),
  });
  s.use((mcp) => {
    mcp.registerTool('ping', { description: 'ping' }, () => {
      calls++;
      return { content: [{ type: 'text', text: 'pong' }] };
    });
  });
  return { s, calls: () => calls };
}

const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'ping', arguments: {} },
});

async function post(
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  body: unknown,
) {
  return app.request('/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(body),
  });
}

describe('JSON-RPC batch size on /mcp', () => {
  it('refuses a batch over the default limit of 10 before running any of it', async () => {
    const { s, calls } = server();
    const response = await post(
      s.app,
      Array.from({ length: 11 }, (_, i) => call(i)),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/batch of 11 .* limit of 10/);
    expect(calls()).toBe(0);
  });

  it('runs a batch within the limit, and a single message', async () => {
    const { s, calls } = server(3);
    const response = await post(s.app, [call(1), call(2), call(3)]);
    expect(response.status).toBe(200);
    expect(((await response.json()) as unknown[]).length).toBe(3);
    expect((await post(s.app, call(4))).status).toBe(200);
    expect(calls()).toBe(4);
    expect((await post(s.app, [call(1), call(2), call(3), call(4)])).status).toBe(400);
    expect(calls()).toBe(4);
  });

  it('answers bad JSON with a JSON-RPC parse error, and a bad limit with invalid_config', async () => {
    const { s } = server();
    const response = await s.app.request('/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect(() => server(0)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });
});
