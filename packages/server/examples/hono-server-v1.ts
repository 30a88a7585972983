// An MCP server on Hono with MCP SDK v1 (`@modelcontextprotocol/sdk`), stateless (one McpServer
// per request), with S2SP added: its tools are registered on each request's McpServer and the
// data plane is mounted with app.route(). It serves 2025-era clients.
import { serve } from '@hono/node-server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createS2SP } from '@s2sp/server';
import { Hono } from 'hono';
import { z } from 'zod';

const s2sp = createS2SP({ ttlSeconds: 300 });

const app = new Hono();
app.route('/', s2sp.dataPlane);
app.get('/', (c) => c.text('my own routes keep working'));
app.post('/mcp', async (c) => {
  const mcp = new McpServer({ name: 'stations', version: '1.0.0' });
  s2sp.registerResourceTool(
    mcp,
    'list_stations',
    { description: 'Weather stations in a state', inputSchema: { state: z.string().length(2) } },
    async ({ state }) => [
      { id: `${state}-1`, name: 'North', elevation_m: 210, notes: 'rooftop' },
      { id: `${state}-2`, name: 'South', elevation_m: 12, notes: 'airport' },
    ],
  );
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await mcp.connect(transport);
  return transport.handleRequest(c.req.raw);
});

const port = Number(process.env.PORT ?? 3000);
serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, (info) => {
  console.log(`MCP server at http://127.0.0.1:${info.port}/mcp`);
});
