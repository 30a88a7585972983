/**
 * A stdio MCP server for the proxy's large-table and pass-through measurements, in its own
 * process: `rows` answers with one text block holding a JSON array of about `mb` megabytes of
 * NWS-like rows (as a database MCP server does), `csv` with one text block of CSV of about `mb`
 * megabytes of short rows (an export tool's answer), `html` with one text block holding an HTML
 * table of `rows` rows of `cells` cells of `size` `fill` characters (the proxy's parse of a plain
 * result, bench/src/proxy-parse.ts), `ping` with a few bytes. With `--http` it serves Streamable
 * HTTP on 127.0.0.1 instead (an ephemeral port, printed as `port <n>`), a server and a transport
 * per MCP session, as an HTTP MCP server does.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
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

const csvTexts = new Map<number, string>();
const EVENTS = ['Flood Warning', 'Wind Advisory', 'Frost Advisory', 'Heat Advisory'];
const SEVERITIES = ['Minor', 'Moderate', 'Severe', 'Extreme'];
const STATES = ['TX', 'CA', 'NY', 'FL', 'WA', 'IL'];

/** A CSV of short rows (`id,event,severity,state,magnitude`), about `mb` MB, built once per size. */
function csvText(mb: number): string {
  let text = csvTexts.get(mb);
  if (text === undefined) {
    const lines = ['id,event,severity,state,magnitude'];
    let size = lines[0]?.length ?? 0;
    for (let i = 0; size < mb * 1_000_000; i++) {
      const line = `${i},${EVENTS[i % 4]},${SEVERITIES[(i >> 2) % 4]},${STATES[i % 6]},${(i % 97) / 10}`;
      lines.push(line);
      size += line.length + 1;
    }
    text = `${lines.join('\n')}\n`;
    csvTexts.set(mb, text);
  }
  return text;
}

/** One MCP server (one per session over HTTP). */
function tableServer(): Server {
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
      {
        name: 'csv',
        description: 'A large CSV export.',
        inputSchema: { type: 'object', properties: { mb: { type: 'number' } } },
      },
      {
        name: 'html',
        description: 'A large HTML table.',
        inputSchema: {
          type: 'object',
          properties: {
            cells: { type: 'integer' },
            rows: { type: 'integer' },
            size: { type: 'integer' },
            fill: { type: 'string' },
          },
        },
      },
      {
        name: 'ping',
        description: 'A few bytes.',
        inputSchema: { type: 'object', properties: {} },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    if (req.params.name === 'ping') return { content: [{ type: 'text', text: 'pong' }] };
    if (req.params.name === 'html') {
      const args = req.params.arguments ?? {};
      const cells = Number(args.cells ?? 4);
      const cell = String(args.fill ?? 'a').repeat(Number(args.size ?? 1));
      const names = Array.from({ length: cells }, (_, i) => `<th>c${i + 1}</th>`).join('');
      const row = `<tr>${`<td>${cell}</td>`.repeat(cells)}</tr>`;
      const text = `<table><tr>${names}</tr>${row.repeat(Number(args.rows ?? 1))}</table>`;
      return { content: [{ type: 'text', text }] };
    }
    const mb = Number(req.params.arguments?.mb ?? 1);
    if (req.params.name === 'csv') return { content: [{ type: 'text', text: csvText(mb) }] };
    return { content: [{ type: 'text', text: tableText(mb) }] };
  });
  return server;
}

if (process.argv.includes('--http')) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (typeof id === 'string' && !transport) {
      res.writeHead(404).end();
      return;
    }
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
      });
      created.onclose = () => void sessions.delete(created.sessionId ?? '');
      void tableServer().connect(created);
      transport = created;
    }
    transport.handleRequest(req, res).catch(() => res.destroy());
  });
  http.listen(0, '127.0.0.1', () => {
    const address = http.address();
    process.stdout.write(`port ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
} else {
  await tableServer().connect(new StdioServerTransport());
}
