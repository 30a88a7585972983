// A stateless MCP server on Hono (one McpServer per request), plus S2SP: register on each
// request's McpServer and mount the data plane with app.route().
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createS2SP } from '@s2sp/server';
import { Hono } from 'hono';
import { z } from 'zod';

const s2sp = createS2SP({ ttlSeconds: 300 });

export const app = new Hono();
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
