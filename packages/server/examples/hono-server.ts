// An MCP server on Hono with MCP SDK v2: createMcpHandler makes one McpServer per request and
// serves clients of both protocol eras (2026-07-28 and 2025) on one endpoint. S2SP registers its
// tools on each request's McpServer, and the data plane is mounted with app.route().
import { serve } from '@hono/node-server';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { createS2SP } from '@s2sp/server';
import { Hono } from 'hono';
import { z } from 'zod';

const s2sp = createS2SP({ ttlSeconds: 300 });

const mcp = createMcpHandler(() => {
  const server = new McpServer({ name: 'stations', version: '1.0.0' });
  s2sp.registerResourceTool(
    server,
    'list_stations',
    {
      description: 'Weather stations in a state',
      // SDK v2 takes a schema object; a bare shape ({ state: … }) still works but is deprecated.
      inputSchema: z.object({ state: z.string().length(2) }),
    },
    async ({ state }) => [
      { id: `${state}-1`, name: 'North', elevation_m: 210, notes: 'rooftop' },
      { id: `${state}-2`, name: 'South', elevation_m: 12, notes: 'airport' },
    ],
  );
  return server;
});

const app = new Hono();
app.route('/', s2sp.dataPlane);
app.get('/', (c) => c.text('my own routes keep working'));
app.all('/mcp', (c) => mcp.fetch(c.req.raw));

const port = Number(process.env.PORT ?? 3000);
serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, (info) => {
  console.log(`MCP server at http://127.0.0.1:${info.port}/mcp`);
});
