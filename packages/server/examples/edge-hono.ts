// Your own Hono app and McpServer, with the checks createS2SPServer applies at its HTTP edge:
// browserGuard (Host, Origin, Sec-Fetch-Site) and bearerAuth in front of /mcp, and the MCP SDK's
// own DNS-rebinding protection on the transport. The data plane needs neither: it refuses
// browsers itself, and its token is the credential.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createS2SP } from '@s2sp/server';
import { bearerAuth, browserGuard } from '@s2sp/server/http';
import { Hono } from 'hono';

const PORT = 3001;
const HOSTS = [`127.0.0.1:${PORT}`, `localhost:${PORT}`, 'stations.example.com'];
const s2sp = createS2SP({ publicUrl: 'https://stations.example.com' });

export const app = new Hono();
app.route('/', s2sp.dataPlane);
app.use('/mcp', browserGuard({ allowedHosts: HOSTS }));
app.use('/mcp', bearerAuth({ bearerTokens: [process.env.MCP_TOKEN ?? 'change-me-0123456789'] }));
app.post('/mcp', async (c) => {
  const mcp = new McpServer({ name: 'stations', version: '1.0.0' });
  s2sp.registerResourceTool(mcp, 'list_stations', { description: 'Stations' }, () => [
    { id: 'TX-1', name: 'North', notes: 'rooftop' },
  ]);
  const transport = new WebStandardStreamableHTTPServerTransport({
    enableJsonResponse: true,
    enableDnsRebindingProtection: true,
    allowedHosts: HOSTS,
    allowedOrigins: HOSTS.map((host) => `https://${host}`),
  });
  await mcp.connect(transport);
  return transport.handleRequest(c.req.raw);
});
