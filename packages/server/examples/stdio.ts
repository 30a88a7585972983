// A stdio MCP server (Claude Desktop and other local clients), plus S2SP: the data plane needs
// HTTP, so serve it on a fixed port and advertise that address as publicUrl.
import { serve } from '@hono/node-server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createS2SP } from '@s2sp/server';

const port = Number(process.env.DATA_PORT ?? 3101);
const s2sp = createS2SP({ publicUrl: `http://127.0.0.1:${port}` });
serve({ fetch: s2sp.dataPlane.fetch, port, hostname: '127.0.0.1' });

const mcp = new McpServer({ name: 'notes', version: '1.0.0' });
s2sp.registerResourceTool(mcp, 'list_notes', { description: 'Notes' }, () => [
  { id: 1, title: 'Groceries', body: 'eggs, flour' },
  { id: 2, title: 'Ideas', body: 'S2SP for everything' },
]);
await mcp.connect(new StdioServerTransport());
