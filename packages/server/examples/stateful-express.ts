// A stateful MCP server written the MCP SDK's documented way (Express, sessions), plus S2SP:
// the five lines marked "S2SP" are all it takes.
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createS2SP } from '@s2sp/server'; // S2SP
import { toNodeHandler } from '@s2sp/server/node'; // S2SP
import express from 'express';
import { z } from 'zod';

const s2sp = createS2SP(); // S2SP
const orders = [
  { id: 'A-1', status: 'shipped', customer: 'Ada', address: '12 Analytical St', total: 99.5 },
  { id: 'A-2', status: 'open', customer: 'Grace', address: '1 Compiler Way', total: 12 },
];

function createMcpServer(): McpServer {
  const mcp = new McpServer(
    { name: 'orders', version: '1.0.0' },
    { capabilities: { logging: {} } },
  );
  mcp.registerTool(
    'ping',
    { description: 'Sends a log notification on this session', inputSchema: { text: z.string() } },
    async ({ text }, extra) => {
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data: text },
      });
      return { content: [{ type: 'text', text: 'pong' }] };
    },
  );
  s2sp.registerResourceTool(mcp, 'list_orders', { description: 'All orders' }, () => orders); // S2SP
  return mcp;
}

export const app: express.Express = express();
app.use(express.json());
app.use(toNodeHandler(s2sp.dataPlane)); // S2SP

const transports: Record<string, StreamableHTTPServerTransport> = {};
app.post('/mcp', async (req, res) => {
  const sessionId = req.headers['mcp-session-id'] as string | undefined;
  let transport = sessionId ? transports[sessionId] : undefined;
  if (!transport && !sessionId && isInitializeRequest(req.body)) {
    const created = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports[id] = created;
      },
    });
    created.onclose = () => {
      if (created.sessionId) delete transports[created.sessionId];
    };
    await createMcpServer().connect(created);
    transport = created;
  }
  if (!transport) {
    res
      .status(400)
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'No session' }, id: null });
    return;
  }
  await transport.handleRequest(req, res, req.body);
});
const sessionRequest = async (req: express.Request, res: express.Response) => {
  const transport = transports[req.headers['mcp-session-id'] as string];
  if (transport) await transport.handleRequest(req, res);
  else res.status(400).send('No session');
};
app.get('/mcp', sessionRequest);
app.delete('/mcp', sessionRequest);
