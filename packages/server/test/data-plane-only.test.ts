import { afterAll, describe, expect, it } from 'vitest';
import { createS2SPServer, silentLogger } from '../src/index.js';

const server = createS2SPServer({ name: 'stdio-like', version: '1', logger: silentLogger });
server.resourceTool('rows', { description: 'Rows.' }, () => [{ a: 1, b: 2 }]);
afterAll(() => server.close());

describe('listen({ dataPlaneOnly })', () => {
  it('serves the data plane but not MCP, for a server whose MCP runs on stdio', async () => {
    const listening = await server.listen({ dataPlaneOnly: true });
    const health = await fetch(`${listening.url}/s2sp/health`);
    expect(health.status).toBe(200);
    const mcp = await fetch(listening.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(404);
    // resource_urls still name this listener.
    expect(server.advertisedUrl()).toBe(listening.url);
  });
});
