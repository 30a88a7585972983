// A 2026-07-28 client's `subscriptions/listen` stream asks for resource updates
// (`resourceSubscriptions`): the proxy subscribes the client's upstream session to them while the
// stream is open, in front of a 2026-07-28-only upstream (which hears of them in its own listen
// filter) and of a 2025-era one (`resources/subscribe`), with an upstream session per client and
// shared by all. Real SDK v2 clients, each its own client by bearer token, against a proxy and an
// upstream on loopback ports; the upstream records what it was asked for.
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import type { Client as ClientV2, McpSubscription } from '@modelcontextprotocol/client';
import { Server as ServerV1 } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { createS2SPEdge } from '@s2sp/server/http';
import { connectEraClient, MODERN_REVISION } from '@s2sp/test-utils';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_LISTEN_RESOURCES } from '../src/downstream/listen-resources.js';
import { type RunningProxy, startProxy } from './support.js';

const FIRST = 'test://first';
const SECOND = 'test://second';
const TOKENS = ['listen-resources-token-one-0123456789', 'listen-resources-token-two-0123456789'];

/** An upstream on loopback that records which resources it is asked to tell of. */
interface RecordingUpstream {
  readonly url: string;
  /** The URIs the upstream is asked to tell of now, over all its sessions (sorted, distinct). */
  wanted(): string[];
  close(): Promise<void>;
}

/** Serves `app` on a loopback port. */
async function serveApp(app: Hono, extra: Omit<RecordingUpstream, 'url' | 'close'>) {
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    ...extra,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections(): void }).closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const distinct = (lists: Iterable<Iterable<string>>) =>
  [...new Set([...lists].flatMap((list) => [...list]))].sort();

/**
 * A 2026-07-28-only upstream (SDK v2, `legacy: 'reject'`): its listen streams' filters are what
 * it was asked for, each held from its request to the end of its stream. `touch` tells every
 * listen stream whose filter names the URI that it changed.
 */
async function modernUpstream(): Promise<RecordingUpstream> {
  const handler = createMcpHandler(
    () => {
      const mcp = new McpServer(
        { name: 'watched-v2', version: '1.0.0' },
        { capabilities: { resources: { subscribe: true } } },
      );
      for (const uri of [FIRST, SECOND])
        mcp.registerResource(uri, uri, { mimeType: 'text/plain' }, () => ({
          contents: [{ uri, mimeType: 'text/plain', text: uri }],
        }));
      mcp.registerTool(
        'touch',
        { description: 'Changes a resource.', inputSchema: z.object({ uri: z.string() }) },
        ({ uri }) => {
          setTimeout(() => handler.notify.resourceUpdated(uri), 100);
          return { content: [{ type: 'text', text: 'touched' }] };
        },
      );
      return mcp;
    },
    { legacy: 'reject' },
  );
  const edge = createS2SPEdge();
  const open = new Set<string[]>();
  const app = new Hono();
  app.all('/mcp', async (c) => {
    const body = c.req.method === 'POST' ? await c.req.json() : undefined;
    const response = await handler.fetch(c.req.raw, { parsedBody: body });
    if (body?.method !== 'subscriptions/listen') return response;
    const filter: string[] = body.params?.notifications?.resourceSubscriptions ?? [];
    open.add(filter);
    return edge.whenStreamEnds(response, () => {
      open.delete(filter);
    });
  });
  return serveApp(app, { wanted: () => distinct(open) });
}

/**
 * A 2025-era upstream (SDK v1, a session per client): what its sessions subscribed to is what it
 * was asked for. `touch` tells every session subscribed to the URI.
 */
async function legacyUpstream(): Promise<RecordingUpstream> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const subscribed = new Map<ServerV1, Set<string>>();
  const create = () => {
    const server = new ServerV1(
      { name: 'watched-v1', version: '1.0.0' },
      { capabilities: { resources: { subscribe: true }, tools: {} } },
    );
    const own = new Set<string>();
    subscribed.set(server, own);
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: [FIRST, SECOND].map((uri) => ({ uri, name: uri })),
    }));
    server.setRequestHandler(SubscribeRequestSchema, (request) => {
      own.add(request.params.uri);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      own.delete(request.params.uri);
      return {};
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 'touch',
          description: 'Changes a resource.',
          inputSchema: { type: 'object', properties: { uri: { type: 'string' } } },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      const uri = String(request.params.arguments?.uri);
      setTimeout(() => {
        for (const [other, uris] of subscribed)
          if (uris.has(uri)) void other.sendResourceUpdated({ uri }).catch(() => {});
      }, 100);
      return { content: [{ type: 'text', text: 'touched' }] };
    });
    server.onclose = () => subscribed.delete(server);
    return server;
  };
  const app = new Hono();
  app.all('/mcp', async (c) => {
    const id = c.req.header('mcp-session-id');
    const found = id === undefined ? undefined : sessions.get(id);
    if (found) return found.handleRequest(c.req.raw);
    if (id !== undefined) return c.body(null, 404);
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, transport);
        },
        onsessionclosed: (sessionId) => {
          sessions.delete(sessionId);
        },
      });
    await create().connect(transport);
    return transport.handleRequest(c.req.raw);
  });
  return serveApp(app, { wanted: () => distinct(subscribed.values()) });
}

const upstreams: [string, () => Promise<RecordingUpstream>][] = [
  ['a 2026-07-28-only upstream', modernUpstream],
  ['a 2025-era upstream', legacyUpstream],
];
const modes: [string, boolean][] = [
  ['its own upstream session per client', false],
  ['one upstream session shared by all', true],
];

describe.each(upstreams)('s2sp-proxy in front of %s', (_name, makeUpstream) => {
  describe.each(modes)('with %s', (_mode, sharedUpstream) => {
    let upstream: RecordingUpstream;
    let running: RunningProxy;
    beforeAll(async () => {
      upstream = await makeUpstream();
      running = await startProxy({
        upstream: { kind: 'http', url: upstream.url },
        auth: { bearerTokens: TOKENS },
        sharedUpstream,
      });
    });
    afterAll(async () => {
      await running?.proxy.close();
      await upstream?.close();
    });

    /** A 2026-07-28 client (its own by its token) and the resource updates it hears of. */
    const connect = async (token: string) => {
      const { client } = await connectEraClient(
        running.listener.mcpUrl,
        { sdk: 2, era: MODERN_REVISION },
        { authorization: `Bearer ${token}` },
      );
      const modern = client as ClientV2;
      const updated: string[] = [];
      modern.setNotificationHandler('notifications/resources/updated', async (notification) => {
        updated.push(notification.params.uri);
      });
      return { client: modern, updated };
    };

    it('tells a listening client of its resource’s updates, not another client’s, and lets the resource go with the stream', async () => {
      const first = await connect(TOKENS[0] as string);
      const second = await connect(TOKENS[1] as string);
      try {
        const firstStream = await first.client.listen({ resourceSubscriptions: [FIRST] });
        expect(firstStream.honoredFilter.resourceSubscriptions).toEqual([FIRST]);
        const secondStream = await second.client.listen({ resourceSubscriptions: [SECOND] });
        expect(upstream.wanted()).toEqual([FIRST, SECOND]);

        await first.client.callTool({ name: 'touch', arguments: { uri: FIRST } });
        await expect.poll(() => first.updated, { timeout: 5000 }).toEqual([FIRST]);
        await second.client.callTool({ name: 'touch', arguments: { uri: SECOND } });
        await expect.poll(() => second.updated, { timeout: 5000 }).toEqual([SECOND]);
        // Each update went to its own listener only (the other's came later and was awaited).
        expect(first.updated).toEqual([FIRST]);

        await firstStream.close();
        await expect.poll(() => upstream.wanted(), { timeout: 5000 }).toEqual([SECOND]);
        await secondStream.close();
        await expect.poll(() => upstream.wanted(), { timeout: 5000 }).toEqual([]);
      } finally {
        await first.client.close();
        await second.client.close();
      }
    });

    it('keeps a resource two streams of a client want until the last one closes', async () => {
      const { client, updated } = await connect(TOKENS[0] as string);
      const streams: McpSubscription[] = [];
      try {
        streams.push(await client.listen({ resourceSubscriptions: [FIRST] }));
        streams.push(await client.listen({ resourceSubscriptions: [FIRST, SECOND] }));
        expect(upstream.wanted()).toEqual([FIRST, SECOND]);
        await streams[1]?.close();
        await expect.poll(() => upstream.wanted(), { timeout: 5000 }).toEqual([FIRST]);
        // The stream still open still hears of its resource.
        await client.callTool({ name: 'touch', arguments: { uri: FIRST } });
        await expect.poll(() => updated, { timeout: 5000 }).toEqual([FIRST]);
        await streams[0]?.close();
        await expect.poll(() => upstream.wanted(), { timeout: 5000 }).toEqual([]);
      } finally {
        for (const stream of streams) await stream.close().catch(() => {});
        await client.close();
      }
    });

    it('refuses a stream naming too many resources, and one naming a URI that is no string, asking nothing upstream', async () => {
      const { client } = await connect(TOKENS[0] as string);
      const refusal = (filter: object) =>
        client.listen(filter).then(
          (stream) => stream.close().then(() => undefined),
          (error: { code?: unknown; data?: unknown }) => ({ code: error.code, data: error.data }),
        );
      try {
        const many = Array.from({ length: MAX_LISTEN_RESOURCES + 1 }, (_, i) => `test://r${i}`);
        expect(await refusal({ resourceSubscriptions: many })).toEqual({
          code: -32602,
          data: { limit: MAX_LISTEN_RESOURCES },
        });
        expect(await refusal({ resourceSubscriptions: [FIRST, 7] })).toMatchObject({
          code: -32602,
        });
        expect(upstream.wanted()).toEqual([]);
      } finally {
        await client.close();
      }
    });
  });
});

describe('s2sp-proxy in front of a 2026-07-28-only stdio upstream that restarts', () => {
  it('subscribes the restarted upstream session to what the client’s open stream still names', async () => {
    const watched = 'test://watched';
    await using running = await startProxy({
      upstream: {
        kind: 'stdio',
        command: process.execPath,
        args: [fileURLToPath(new URL('./fixtures/watched-server.mjs', import.meta.url))],
      },
      restartDelayMs: 50,
    });
    const { client } = await connectEraClient(running.listener.mcpUrl, {
      sdk: 2,
      era: MODERN_REVISION,
    });
    const modern = client as ClientV2;
    const updated: string[] = [];
    modern.setNotificationHandler('notifications/resources/updated', async (notification) => {
      updated.push(notification.params.uri);
    });
    try {
      const stream = await modern.listen({ resourceSubscriptions: [watched] });
      await modern.callTool({ name: 'touch', arguments: {} });
      await expect.poll(() => updated, { timeout: 5000 }).toEqual([watched]);
      await modern.callTool({ name: 'crash', arguments: {} });
      await expect.poll(() => running.proxy.upstreamRestarts(), { timeout: 10_000 }).toBe(1);
      // The restarted session is asked again for what the stream names: a change reaches it.
      await expect
        .poll(
          async () => {
            await modern.callTool({ name: 'touch', arguments: {} }).catch(() => {});
            await new Promise((resolve) => setTimeout(resolve, 300));
            return updated.length;
          },
          { timeout: 10_000 },
        )
        .toBeGreaterThan(1);
      expect(new Set(updated)).toEqual(new Set([watched]));
      await stream.close();
    } finally {
      await client.close();
    }
  });
});
