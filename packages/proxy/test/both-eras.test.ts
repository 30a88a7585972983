// The proxy serves clients of both protocol eras on one endpoint — a 2026-07-28 client per
// request, a 2025 client in its session — in front of a 2025-era stdio upstream and in front of a
// 2026-07-28 upstream (an SDK v2 server, which serves the proxy's 2025 handshake on the same
// endpoint).

import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { fetchBody, readS2SPCapability, S2SPResultSchema } from '@s2sp/core';
import { connectEraClient, MODERN_REVISION, runTitle, type SdkClientRun } from '@s2sp/test-utils';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { UpstreamTarget } from '../src/upstream/upstream-target.js';
import { type RunningProxy, startProxy, TABLE_SERVER } from './support.js';

/** The resource `touch` changes. */
const WATCHED = 'test://watched';

const CITIES = [
  { id: 1, city: 'Austin', state: 'TX', notes: 'capital' },
  { id: 2, city: 'Boston', state: 'MA', notes: 'harbor' },
];

/**
 * An upstream on SDK v2: createMcpHandler serves 2026-07-28 and, unless `legacy` is `reject`
 * (a 2026-only server), 2025 too.
 */
async function modernUpstream(legacy?: 'reject'): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createMcpHandler(() => {
    const mcp = new McpServer(
      { name: 'cities-v2', version: '1.0.0' },
      { capabilities: { resources: { subscribe: true } } },
    );
    mcp.registerTool('rows', { description: 'All cities.', inputSchema: z.object({}) }, () => ({
      content: [{ type: 'text', text: JSON.stringify(CITIES) }],
    }));
    // Tells every listen stream that the tool list changed, after its call has ended (as a
    // server does when another process adds a tool): only a listen stream can carry it.
    mcp.registerTool(
      'announce',
      { description: 'Tools changed.', inputSchema: z.object({}) },
      () => {
        setTimeout(() => handler.notify.toolsChanged(), 200);
        return { content: [{ type: 'text', text: 'announced' }] };
      },
    );
    // A resource that changes when `touch` is called: a subscriber is told (2026-07-28: on a
    // listen stream whose filter names it).
    mcp.registerResource(
      'watched',
      WATCHED,
      { description: 'Changes on touch.', mimeType: 'text/plain' },
      (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'watched' }] }),
    );
    mcp.registerTool('touch', { description: 'Changes it.', inputSchema: z.object({}) }, () => {
      setTimeout(() => handler.notify.resourceUpdated(WATCHED), 200);
      return { content: [{ type: 'text', text: 'touched' }] };
    });
    return mcp;
  }, legacy && { legacy });
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

/** A 2026-07-28-only stdio upstream (`serveStdio` with `legacy: 'reject'`). */
const MODERN_ONLY_STDIO: UpstreamTarget = {
  kind: 'stdio',
  command: process.execPath,
  args: [fileURLToPath(new URL('./fixtures/modern-only-server.mjs', import.meta.url))],
};

const upstreams: [string, () => Promise<{ target: UpstreamTarget; close(): Promise<void> }>][] = [
  ['a 2025-era stdio upstream', async () => ({ target: TABLE_SERVER, close: async () => {} })],
  [
    'a 2026-07-28 upstream (SDK v2 over HTTP)',
    async () => {
      const upstream = await modernUpstream();
      return { target: { kind: 'http', url: upstream.url }, close: upstream.close };
    },
  ],
  [
    'a 2026-07-28-only upstream (SDK v2 over HTTP, legacy rejected)',
    async () => {
      const upstream = await modernUpstream('reject');
      return { target: { kind: 'http', url: upstream.url }, close: upstream.close };
    },
  ],
  [
    'a 2026-07-28-only upstream (SDK v2 over stdio, legacy rejected)',
    async () => ({ target: MODERN_ONLY_STDIO, close: async () => {} }),
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

  // First: a later table call from the same address teaches the proxy nothing new.
  it('tells a 2026-07-28 client’s listen stream when its tool list changes', async () => {
    const { client } = await connectEraClient(running.listener.mcpUrl, {
      sdk: 2,
      era: MODERN_REVISION,
    });
    const modern = client as ClientV2;
    try {
      let changed = 0;
      modern.setNotificationHandler('notifications/tools/list_changed', async () => {
        changed++;
      });
      const subscription = await modern.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter.toolsListChanged).toBe(true);
      // A table result teaches the proxy this client's columns: its tool descriptions change.
      await modern.callTool({ name: 'rows', arguments: { abstract_domains: 'city' } });
      await expect.poll(() => changed, { timeout: 5000 }).toBeGreaterThan(0);
      await subscription.close();
    } finally {
      await client.close();
    }
  });

  it.each(
    [
      { sdk: 2, era: MODERN_REVISION },
      { sdk: 1, era: 'legacy' },
    ].map((run) => [runTitle(run as SdkClientRun), run as SdkClientRun] as const),
  )('serves %s: S2SP declared, the table split, the rows redeemed', async (_c, run) => {
    const client = await connectEraClient(running.listener.mcpUrl, run);
    try {
      expect(readS2SPCapability(client.capabilities())?.roles).toEqual(['resource']);
      expect(await client.tools()).toContain('rows');
      const result = await client.call('rows', { abstract_domains: 'city' });
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

describe('s2sp-proxy in front of a 2026-07-28-only upstream that changes its tools', () => {
  it('passes the upstream’s list change (sent only on a listen stream) to a client', async () => {
    const upstream = await modernUpstream('reject');
    await using running = await startProxy({ upstream: { kind: 'http', url: upstream.url } });
    try {
      const client = new ClientV1({ name: 'listener', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(running.listener.mcpUrl)));
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        changed++;
      });
      // The client's own upstream session opens with this call, and listens upstream; the
      // change comes after the call (and no table was returned: the proxy itself changed nothing).
      await client.callTool({ name: 'announce', arguments: {} });
      await expect.poll(() => changed, { timeout: 5000 }).toBeGreaterThan(0);
      await client.close();
    } finally {
      await upstream.close();
    }
  });
});

describe('s2sp-proxy in front of a 2026-07-28-only upstream whose resources change', () => {
  it('subscribes a client’s resources/subscribe upstream on a listen stream, and tells it of the change', async () => {
    const upstream = await modernUpstream('reject');
    await using running = await startProxy({ upstream: { kind: 'http', url: upstream.url } });
    try {
      const client = new ClientV1({ name: 'subscriber', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(running.listener.mcpUrl)));
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const updated: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
        updated.push(notification.params.uri);
      });
      await client.subscribeResource({ uri: WATCHED });
      await client.callTool({ name: 'touch', arguments: {} });
      await expect.poll(() => updated, { timeout: 5000 }).toEqual([WATCHED]);
      // Unsubscribed, it hears of no further change.
      await client.unsubscribeResource({ uri: WATCHED });
      await client.callTool({ name: 'touch', arguments: {} });
      await client.callTool({ name: 'rows', arguments: {} });
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(updated).toEqual([WATCHED]);
      await client.close();
    } finally {
      await upstream.close();
    }
  });
});
