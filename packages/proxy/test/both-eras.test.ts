// The proxy serves clients of both protocol eras on one endpoint — a 2026-07-28 client per
// request, a 2025 client in its session — in front of a 2025-era stdio upstream and in front of a
// 2026-07-28 upstream (an SDK v2 server, which serves the proxy's 2025 handshake on the same
// endpoint).

import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { fetchBody, readS2SPCapability, S2SPResultSchema } from '@s2sp/core';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { UpstreamTarget } from '../src/upstream/upstream-target.js';
import { httpClient, type RunningProxy, startProxy, TABLE_SERVER } from './support.js';

const CITIES = [
  { id: 1, city: 'Austin', state: 'TX', notes: 'capital' },
  { id: 2, city: 'Boston', state: 'MA', notes: 'harbor' },
];

/** An upstream on SDK v2: createMcpHandler serves 2026-07-28 and, to the proxy, 2025. */
async function modernUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createMcpHandler(() => {
    const mcp = new McpServer({ name: 'cities-v2', version: '1.0.0' });
    mcp.registerTool('rows', { description: 'All cities.', inputSchema: z.object({}) }, () => ({
      content: [{ type: 'text', text: JSON.stringify(CITIES) }],
    }));
    return mcp;
  });
  const app = new Hono();
  app.all('/mcp', (c) => handler.fetch(c.req.raw));
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections(): void }).closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Caller {
  era: string | undefined;
  capabilities: unknown;
  call(name: string, args: Record<string, unknown>): Promise<unknown>;
  tools(): Promise<string[]>;
  close(): Promise<void>;
}

async function pinnedClient(url: string): Promise<Caller> {
  const client = new ClientV2(
    { name: 't', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new TransportV2(new URL(url)));
  return {
    era: client.getProtocolEra(),
    capabilities: client.getServerCapabilities(),
    call: (name, args) => client.callTool({ name, arguments: args }),
    tools: async () => (await client.listTools()).tools.map((t) => t.name),
    close: () => client.close(),
  };
}

async function legacyClient(url: string): Promise<Caller> {
  const { client } = await httpClient(url);
  return {
    era: 'legacy',
    capabilities: client.getServerCapabilities(),
    call: (name, args) => client.callTool({ name, arguments: args }),
    tools: async () => (await client.listTools()).tools.map((t) => t.name),
    close: () => client.close(),
  };
}

const upstreams: [string, () => Promise<{ target: UpstreamTarget; close(): Promise<void> }>][] = [
  ['a 2025-era stdio upstream', async () => ({ target: TABLE_SERVER, close: async () => {} })],
  [
    'a 2026-07-28 upstream (SDK v2 over HTTP)',
    async () => {
      const upstream = await modernUpstream();
      return { target: { kind: 'http', url: upstream.url }, close: upstream.close };
    },
  ],
];

describe.each(upstreams)('s2sp-proxy in front of %s', (_name, makeUpstream) => {
  let running: RunningProxy;
  let closeUpstream: () => Promise<void>;
  beforeAll(async () => {
    const upstream = await makeUpstream();
    closeUpstream = upstream.close;
    running = await startProxy({ upstream: upstream.target, tableTools: [{ name: 'rows' }] });
  });
  afterAll(async () => {
    await running.proxy.close();
    await closeUpstream();
  });

  it.each([
    ['an SDK v2 client pinned to 2026-07-28', pinnedClient, 'modern'],
    ['a 2025 client (SDK v1)', legacyClient, 'legacy'],
  ])('serves %s: S2SP declared, the table split, the rows redeemed', async (_c, connect, era) => {
    const client = await connect(running.listener.mcpUrl);
    try {
      expect(client.era).toBe(era);
      expect(readS2SPCapability(client.capabilities)?.roles).toEqual(['resource']);
      expect(await client.tools()).toContain('rows');
      const result = (await client.call('rows', { abstract_domains: 'city' })) as {
        structuredContent?: unknown;
      };
      const split = S2SPResultSchema.parse(result.structuredContent);
      expect(split.abstract.slice(0, 2)).toEqual([
        { _row_id: 0, city: 'Austin' },
        { _row_id: 1, city: 'Boston' },
      ]);
      const { body } = await fetchBody(split.resource_url as string, { destinations: 'any' });
      expect((body[0] as { notes?: string }).notes).toBe('capital');
    } finally {
      await client.close();
    }
  });
});
