/**
 * A stdio MCP server for the proxy's large-table and pass-through measurements, in its own
 * process: `rows` answers with one text block holding a JSON array of about `mb` megabytes of
 * NWS-like rows (as a database MCP server does), `ping` with a few bytes.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { makeAlertRows } from '../alert-rows.js';

const texts = new Map<number, string>();

/** The table's JSON text, about `mb` MB (built once per size: the upstream's cost is not measured). */
function tableText(mb: number): string {
  let text = texts.get(mb);
  if (text === undefined) {
    const sample = JSON.stringify(makeAlertRows(100)).length / 100;
    text = JSON.stringify(makeAlertRows(Math.ceil((mb * 1_000_000) / sample)));
    texts.set(mb, text);
  }
  return text;
}

const server = new Server(
  { name: 'bench-table-upstream', version: '1.0.0' },
  { capabilities: { tools: {} } },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'rows',
      description: 'A large table.',
      inputSchema: { type: 'object', properties: { mb: { type: 'number' } } },
    },
    { name: 'ping', description: 'A few bytes.', inputSchema: { type: 'object', properties: {} } },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  if (req.params.name === 'ping') return { content: [{ type: 'text', text: 'pong' }] };
  const mb = Number(req.params.arguments?.mb ?? 1);
  return { content: [{ type: 'text', text: tableText(mb) }] };
});
await server.connect(new StdioServerTransport());
