// The other side of hono-server.ts (and of hono-server-v1.ts): an agent's MCP client calls
// list_stations asking for the name column only, and fetchBody redeems the resource_url for the
// full rows, as a consumer server does. The server is on loopback and fetchBody fetches only from
// public addresses unless told otherwise, so its origin is allow-listed.
// Two clients: 'auto' negotiates the newest protocol era the server speaks (2026-07-28 on SDK v2,
// the 2025 handshake on SDK v1), and 'legacy' always uses the 2025 handshake. Neither pins a
// version, so both work against a server of either SDK.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fetchBody } from '@s2sp/core';

const url = new URL(`http://127.0.0.1:${process.env.PORT ?? 3000}/mcp`);

for (const mode of ['auto', 'legacy'] as const) {
  const client = new Client(
    { name: 'stations-agent', version: '1.0.0' },
    { versionNegotiation: { mode } },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  const result = await client.callTool({
    name: 'list_stations',
    arguments: { state: 'TX', abstract_domains: 'name' },
  });
  // What the model reads: the name column, a _row_id per row, and the resource_url.
  const { abstract, resource_url } = result.structuredContent as {
    abstract: object[];
    resource_url: string;
  };
  // What a consumer fetches server to server: every column of every row, once.
  const { body } = await fetchBody(resource_url, { allowedOrigins: [url.origin] });
  console.log(JSON.stringify({ era: client.getProtocolEra(), abstract, body }));
  await client.close();
}
