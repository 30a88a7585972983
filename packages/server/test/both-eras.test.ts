// S2SP on both MCP SDK majors and both protocol eras: the user's own McpServer of SDK v2 (served
// by createMcpHandler, 2026-07-28 and 2025 clients on one endpoint) and of SDK v1 (the 2025
// stateless transport), each with the same createS2SP tools; and createS2SPServer, which serves
// both eras. Progress, cancellation, trace continuation and per-client quotas are checked on each.
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport as ServerTransportV1 } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createMcpHandler, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { fetchBody, PROTOCOL, readS2SPCapability, S2SPResultSchema } from '@s2sp/core';
import {
  type CallOptions,
  connectEraClient,
  MODERN_REVISION,
  type SdkClientRun,
} from '@s2sp/test-utils';
import { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolCall } from '../src/gateway.js';
import {
  clientKey,
  createS2SP,
  createS2SPServer,
  type S2SP,
  silentLogger,
  toolProgress,
} from '../src/index.js';
import { readToolCall } from '../src/mcp/tool-call.js';
import { resetOtelForTests } from '../src/telemetry/otel.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;
const ROWS = [
  { id: 1, kind: 'a', secret: 'x' },
  { id: 2, kind: 'b', secret: 'y' },
];

const exporter = new InMemorySpanExporter();
beforeAll(() => {
  resetOtelForTests();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});
afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
  resetOtelForTests();
});

const open: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
  exporter.reset();
});

/** What the shared tool saw of each call, whichever SDK made its context. */
interface Seen {
  cancelled: boolean;
}

/** The same tool for both majors: reads its context only through S2SP's helpers. */
function rowsHandler(seen: Seen) {
  return async ({ wait }: { wait?: boolean | undefined }, call: ToolCall) => {
    const progress = toolProgress(call);
    progress(1, 2, 'half');
    progress(2, 2, 'all');
    if (wait) {
      const signal = readToolCall(call).signal;
      await new Promise<void>((resolve) => {
        if (signal?.aborted) resolve();
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      seen.cancelled = signal?.aborted === true;
    }
    return ROWS;
  };
}

const config = {
  description: 'Rows.',
  inputSchema: { wait: z.boolean().optional() },
};

/** A Hono app on 127.0.0.1 port 0; the caller's `x-test-client` header is its auth id. */
async function listen(app: Hono): Promise<string> {
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  open.push(
    () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections(): void }).closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const authOf = (request: Request) => {
  const id = request.headers.get('x-test-client');
  return id ? { token: `token-${id}`, clientId: id, scopes: [] } : undefined;
};

/** The README's SDK v2 way: a fresh McpServer per request from createMcpHandler, no publicUrl. */
async function userServerV2(s2sp: S2SP, seen: Seen): Promise<string> {
  const handler = createMcpHandler(() => {
    const mcp = new McpServerV2({ name: 'v2', version: '1.0.0' });
    // No cast, and the handler's second argument is SDK v2's ServerContext.
    s2sp.registerResourceTool(mcp, 'rows', config, (args, ctx) => {
      expect(typeof ctx.mcpReq.method).toBe('string');
      return rowsHandler(seen)(args, ctx);
    });
    return mcp;
  });
  const app = new Hono();
  app.route('/', s2sp.dataPlane);
  app.all('/mcp', (c) => {
    const authInfo = authOf(c.req.raw);
    return handler.fetch(c.req.raw, authInfo ? { authInfo } : {});
  });
  return `${await listen(app)}/mcp`;
}

/**
 * The SDK v1 way, unchanged: Streamable HTTP with one McpServer per session, so that a 2025
 * client's `notifications/cancelled` reaches the call it cancels.
 */
async function userServerV1(s2sp: S2SP, seen: Seen): Promise<string> {
  const app = new Hono();
  app.route('/', s2sp.dataPlane);
  const sessions = new Map<string, ServerTransportV1>();
  app.all('/mcp', async (c) => {
    const id = c.req.header('mcp-session-id');
    let transport = id === undefined ? undefined : sessions.get(id);
    if (!transport) {
      const created: ServerTransportV1 = new ServerTransportV1({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (session) => {
          sessions.set(session, created);
        },
      });
      const mcp = new McpServerV1({ name: 'v1', version: '1.0.0' });
      // The handler's second argument is SDK v1's RequestHandlerExtra.
      s2sp.registerResourceTool(mcp, 'rows', config, (args, extra) => {
        expect(extra.requestId).toBeDefined();
        return rowsHandler(seen)(args, extra);
      });
      await mcp.connect(created);
      open.push(() => created.close());
      transport = created;
    }
    const authInfo = authOf(c.req.raw);
    return transport.handleRequest(c.req.raw, authInfo ? { authInfo } : {});
  });
  return `${await listen(app)}/mcp`;
}

/** A client of one SDK major and era; its calls name `rows` unless `tool` says otherwise. */
interface AnyClient {
  capabilities(): unknown;
  call(
    args: Record<string, unknown>,
    options?: CallOptions & { meta?: Record<string, unknown>; tool?: string },
  ): Promise<{ isError?: boolean; structuredContent?: unknown; _meta?: unknown }>;
}

async function connectAs(
  url: string,
  run: SdkClientRun,
  headers?: Record<string, string>,
): Promise<AnyClient> {
  const client = await connectEraClient(url, run, headers);
  open.push(() => client.close());
  return {
    capabilities: () => client.capabilities(),
    call: (args, { tool, ...options } = {}) => client.call(tool ?? 'rows', args, options),
  };
}

const V1_LEGACY: SdkClientRun = { sdk: 1, era: 'legacy' };
const V2_LEGACY: SdkClientRun = { sdk: 2, era: 'legacy' };
const V2_PINNED: SdkClientRun = { sdk: 2, era: MODERN_REVISION };

type Setup = (
  s2sp: S2SP,
  seen: Seen,
) => Promise<{ url: string; connect(headers?: Record<string, string>): Promise<AnyClient> }>;

const modernOnV2: [string, Setup] = [
  'SDK v2 McpServer, 2026-07-28 client',
  async (s2sp, seen) => {
    const url = await userServerV2(s2sp, seen);
    return { url, connect: (headers) => connectAs(url, V2_PINNED, headers) };
  },
];
const legacyOnV2: [string, Setup] = [
  'SDK v2 McpServer, 2025 client (SDK v1)',
  async (s2sp, seen) => {
    const url = await userServerV2(s2sp, seen);
    return { url, connect: (headers) => connectAs(url, V1_LEGACY, headers) };
  },
];
const legacyOnV1: [string, Setup] = [
  'SDK v1 McpServer with sessions, 2025 client (SDK v2)',
  async (s2sp, seen) => {
    const url = await userServerV1(s2sp, seen);
    return { url, connect: (headers) => connectAs(url, V2_LEGACY, headers) };
  },
];

const makeS2SP = () => {
  const s2sp = createS2SP({ logger: silentLogger, maxEntriesPerClient: 1 });
  open.push(() => s2sp.close());
  return s2sp;
};

async function redeem(resourceUrl: string) {
  return (await fetchBody(resourceUrl, { destinations: 'any' })).body;
}

describe.each([modernOnV2, legacyOnV2, legacyOnV1])(
  'createS2SP on the user’s server: %s',
  (_name, setup) => {
    const make = makeS2SP;

    it('declares S2SP both ways, splits, and the resource_url (inferred from the request) redeems once', async () => {
      const s2sp = make();
      const server = await setup(s2sp, { cancelled: false });
      const client = await server.connect();
      const capability = readS2SPCapability(client.capabilities());
      expect(capability).toMatchObject({ version: PROTOCOL.version, roles: ['resource'] });
      const result = await client.call({ abstract_domains: 'kind' });
      expect(result.isError).toBeFalsy();
      const split = S2SPResultSchema.parse(result.structuredContent);
      expect(split.abstract).toEqual([
        { _row_id: 0, kind: 'a' },
        { _row_id: 1, kind: 'b' },
      ]);
      expect(split.resource_url?.startsWith(new URL(server.url).origin)).toBe(true);
      expect((await redeem(split.resource_url as string)).map((row) => row.secret)).toEqual([
        'x',
        'y',
      ]);
      await expect(redeem(split.resource_url as string)).rejects.toMatchObject({
        code: 'not_found',
      });
    });

    it('reports toolProgress to the client', async () => {
      const server = await setup(make(), { cancelled: false });
      const client = await server.connect();
      const seen: number[] = [];
      await client.call({}, { onprogress: (p) => seen.push(p.progress) });
      expect(seen).toEqual([1, 2]);
    });

    it('continues the caller’s trace from _meta.traceparent', async () => {
      const server = await setup(make(), { cancelled: false });
      const client = await server.connect();
      await client.call({}, { meta: { traceparent: TRACEPARENT } });
      const spans = exporter.getFinishedSpans().filter((s) => s.name === 'tools/call rows');
      expect(spans.map((s) => [s.spanContext().traceId, s.parentSpanContext?.spanId])).toEqual([
        [TRACE_ID, 'b7ad6b7169203331'],
      ]);
    });

    it('counts quotas per authenticated client, not in one shared bucket', async () => {
      const server = await setup(make(), { cancelled: false });
      const alice = await server.connect({ 'x-test-client': 'alice' });
      const bob = await server.connect({ 'x-test-client': 'bob' });
      expect((await alice.call({ abstract_domains: 'kind' })).isError).toBeFalsy();
      const refused = await alice.call({ abstract_domains: 'kind' });
      expect(refused.isError).toBe(true);
      expect((refused._meta as Record<string, unknown>)[PROTOCOL.errorCodeMeta]).toBe('store_full');
      expect((await bob.call({ abstract_domains: 'kind' })).isError).toBeFalsy();
    });
  },
);

// A 2025 client cancels with `notifications/cancelled`, which reaches the call only where the
// server keeps the session that runs it; a 2026-07-28 call is cancelled with its HTTP request.
describe.each([modernOnV2, legacyOnV1])('cancellation on the user’s server: %s', (_name, setup) => {
  it('aborts the handler’s signal when the client cancels', async () => {
    const seen = { cancelled: false };
    const server = await setup(makeS2SP(), seen);
    const client = await server.connect();
    const controller = new AbortController();
    const call = client.call({ wait: true }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    await expect(call).rejects.toBeDefined();
    await expect.poll(() => seen.cancelled, { timeout: 5000 }).toBe(true);
  });
});

describe('createS2SPServer serves both eras on one endpoint', () => {
  it('answers a 2026-07-28 tools/list as private and not to be cached (its descriptions name the TTL)', async () => {
    const server = createS2SPServer({ name: 'cache', version: '1', logger: silentLogger });
    server.resourceTool('rows', config, () => ROWS);
    const listening = await server.listen();
    open.push(() => server.close());
    const answers: Record<string, unknown>[] = [];
    const client = new ClientV2(
      { name: 't', version: '1' },
      { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    const spy: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body = String(init?.body ?? '');
      if (body.includes('"tools/list"')) answers.push(await response.clone().json());
      return response;
    };
    await client.connect(new TransportV2(new URL(listening.mcpUrl), { fetch: spy }));
    open.push(() => client.close());
    await client.listTools();
    expect(answers.map((answer) => answer.result)).toMatchObject([
      { cacheScope: 'private', ttlMs: 0 },
    ]);
  });

  it.each([
    ['a 2026-07-28 client (SDK v2 pinned)', (url: string) => connectAs(url, V2_PINNED)],
    ['a 2025 client of SDK v2', (url: string) => connectAs(url, V2_LEGACY)],
    ['a 2025 client of SDK v1', (url: string) => connectAs(url, V1_LEGACY)],
  ])('%s: split, redeem, and quotas keyed by the caller’s address', async (_name, connect) => {
    const server = createS2SPServer({
      name: 'both',
      version: '1',
      logger: silentLogger,
      maxEntriesPerClient: 1,
    });
    server.resourceTool('rows', config, (args, ctx) =>
      rowsHandler({ cancelled: false })(args, ctx),
    );
    const keys: string[] = [];
    server.use((mcp) =>
      mcp.registerTool('who', { inputSchema: z.object({}) }, (_args, ctx) => {
        keys.push(clientKey(ctx));
        return { content: [] };
      }),
    );
    const listening = await server.listen();
    open.push(() => server.close());
    const client = await connect(listening.mcpUrl);
    expect(readS2SPCapability(client.capabilities())?.roles).toEqual(['resource']);
    const split = S2SPResultSchema.parse(
      (await client.call({ abstract_domains: 'kind' })).structuredContent,
    );
    const refused = await client.call({ abstract_domains: 'kind' });
    expect((refused._meta as Record<string, unknown>)[PROTOCOL.errorCodeMeta]).toBe('store_full');
    expect(await redeem(split.resource_url as string)).toHaveLength(2);
    await client.call({}, { tool: 'who' });
    expect(keys).toEqual(['address:127.0.0.1']);
  });
});
