import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startProxy, TABLE_SERVER } from './support.js';

/** POSTs an MCP initialize with exactly these headers (node:http can set Host). */
function initialize(port: number, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'edge-test', version: '1' },
    },
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        // An accepted initialize opens an SSE response; its status is all this test needs.
        res.destroy();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the proxy’s /mcp against browsers and DNS rebinding', () => {
  it('refuses a rebound Host and a foreign Origin with 403, and accepts its own', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    const { port } = running.listener;
    const own = `127.0.0.1:${port}`;
    expect(await initialize(port, { host: own })).toBe(200);
    expect(await initialize(port, { host: own, origin: `http://${own}` })).toBe(200);
    expect(await initialize(port, { host: `rebind.attacker.example:${port}` })).toBe(403);
    expect(await initialize(port, { host: own, origin: 'https://evil.example' })).toBe(403);
    expect(await initialize(port, { host: own, origin: 'null' })).toBe(403);
  });
});
