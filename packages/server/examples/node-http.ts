// Plain node:http: the data plane as a request listener next to your own handler.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createS2SP } from '@s2sp/server';
import { toNodeHandler } from '@s2sp/server/node';

const s2sp = createS2SP();
// Served straight from Node's request and response (the data plane's fastest way).
const dataPlane = toNodeHandler(s2sp.dataPlane);

export const server = createServer(async (req, res) => {
  if (req.url?.startsWith('/s2sp/')) return dataPlane(req, res);
  if (req.url !== '/mcp') return res.writeHead(404).end();
  const mcp = new McpServer({ name: 'files', version: '1.0.0' });
  s2sp.registerResourceTool(mcp, 'list_files', { description: 'Files' }, () => [
    { path: '/a.txt', bytes: 10, owner: 'root' },
    { path: '/b.txt', bytes: 20, owner: 'ada' },
  ]);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await mcp.connect(transport);
  await transport.handleRequest(req, res);
});
