// createS2SP on the user's own servers, in each way people run MCP servers: the examples in
// examples/ (shown verbatim in the README) run here against the official SDK client.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fetchBody, S2SPError, S2SPResultSchema } from '@s2sp/core';
import { afterEach, describe, expect, it } from 'vitest';

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function listen(server: Server): Promise<string> {
  if (!server.listening) {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  }
  open.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function connect(mcpUrl: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  open.push(() => client.close());
  return client;
}

async function split(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBeFalsy();
  return S2SPResultSchema.parse(result.structuredContent);
}

async function redeemedOnce(resourceUrl: string) {
  // A loopback data plane: the test opts out of public destinations only.
  const fetched = await fetchBody(resourceUrl, { destinations: 'any' });
  const again = await fetchBody(resourceUrl, { destinations: 'any' }).catch(
    (error: unknown) => error,
  );
  expect(S2SPError.isInstance(again) && again.code).toBe('not_found');
  return fetched.body;
}

describe('createS2SP on a stateful Express server (the SDK’s documented way)', () => {
  it('adds a resource tool; sessions, other tools and notifications keep working', async () => {
    const { app } = await import('../examples/stateful-express.js');
    const base = await listen(app.listen(0, '127.0.0.1'));
    const client = await connect(`${base}/mcp`);
    const transport = client.transport as StreamableHTTPClientTransport;
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);

    const messages: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push(n.params.data);
    });
    const ping = await client.callTool({ name: 'ping', arguments: { text: 'hello session' } });
    expect(ping.content).toEqual([{ type: 'text', text: 'pong' }]);
    expect(messages).toEqual(['hello session']);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ping', 'list_orders']);

    const result = await split(client, 'list_orders', { abstract_domains: 'status' });
    expect(result.abstract).toEqual([
      { _row_id: 0, status: 'shipped' },
      { _row_id: 1, status: 'open' },
    ]);
    expect(result.resource_url).toMatch(new RegExp(`^${base}/s2sp/data/`));
    // Redeemed through Express after express.json() consumed the stream: row_ids survive.
    const response = await fetch(result.resource_url as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ row_ids: [1], columns: ['customer'] }),
    });
    expect(await response.json()).toEqual({
      body: [{ _row_id: 1, customer: 'Grace' }],
      total_rows: 1,
      columns_returned: ['_row_id', 'customer'],
    });
    expect((await fetch(result.resource_url as string, { method: 'POST' })).status).toBe(404);

    // A second session is a second McpServer; both share the runtime's store.
    const other = await connect(`${base}/mcp`);
    expect((other.transport as StreamableHTTPClientTransport).sessionId).not.toBe(
      transport.sessionId,
    );
    const second = await split(other, 'list_orders', { abstract_domains: ['id'] });
    expect((await redeemedOnce(second.resource_url as string)).map((r) => r.customer)).toEqual([
      'Ada',
      'Grace',
    ]);
    // Express's own 404 still answers other paths.
    expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
  });
});

describe('createS2SP on a stateless Hono app', () => {
  it('registers per request and serves the data plane through app.route()', async () => {
    const { app } = await import('../examples/stateless-hono.js');
    const base = await listen(
      serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server,
    );
    expect(await (await fetch(base)).text()).toBe('my own routes keep working');
    const client = await connect(`${base}/mcp`);
    const result = await split(client, 'list_stations', {
      state: 'TX',
      abstract_domains: 'name',
    });
    expect(result.body_domains).toEqual(['id', 'elevation_m', 'notes']);
    expect(await redeemedOnce(result.resource_url as string)).toEqual([
      { _row_id: 0, id: 'TX-1', name: 'North', elevation_m: 210, notes: 'rooftop' },
      { _row_id: 1, id: 'TX-2', name: 'South', elevation_m: 12, notes: 'airport' },
    ]);
    // The mounted data plane keeps its own JSON errors; bad input does not use the token.
    const fresh = await split(client, 'list_stations', { state: 'TX', abstract_domains: 'id' });
    const bad = await fetch(fresh.resource_url as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"row_ids":"all"}',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    expect((await redeemedOnce(fresh.resource_url as string)).length).toBe(2);
  });
});

describe('createS2SP on plain node:http', () => {
  it('serves the data plane with @hono/node-server’s request listener', async () => {
    const { server } = await import('../examples/node-http.js');
    const base = await listen(server);
    const client = await connect(`${base}/mcp`);
    const result = await split(client, 'list_files', { abstract_domains: 'path', mode: 'async' });
    expect((await redeemedOnce(result.resource_url as string)).map((r) => r.owner)).toEqual([
      'root',
      'ada',
    ]);
    const sync = await split(client, 'list_files', { abstract_domains: 'path', mode: 'sync' });
    expect(sync.resource_url).toBeUndefined();
    expect(sync.body).toEqual([
      { _row_id: 0, bytes: 10, owner: 'root' },
      { _row_id: 1, bytes: 20, owner: 'ada' },
    ]);
  });
});
