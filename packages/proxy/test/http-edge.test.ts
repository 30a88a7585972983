import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS2SPProxy } from '../src/index.js';
import { type RunningCli, startCli, startProxy, TABLE_SERVER } from './support.js';
import { call, s2sp } from './table-calls.js';

const TOKEN = 'proxy-edge-token-0123456789abcdef';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'edge-test', version: '1' },
  },
});

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** POSTs `body` with exactly these headers (node:http can set Host) to `address:port`. */
function post(
  target: { address?: string; port: number; path?: string },
  headers: Record<string, string>,
  body = INITIALIZE,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.address ?? '127.0.0.1',
        port: target.port,
        path: target.path ?? '/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          // An accepted initialize opens an SSE response: its first event is all a test needs.
          if (text.includes('\n\n')) res.destroy();
        });
        const done = () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Raw TCP: the request line and `head`, then one byte every 200 ms (header lines when `head` is
 * unfinished, body bytes when it is). Resolves with the status line's code and the time it took.
 */
function trickle(port: number, head: string): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write(head);
      const inBody = head.includes('\r\n\r\n');
      timer = setInterval(
        () => socket.writable && socket.write(inBody ? ' ' : 'X-Slow: 1\r\n'),
        200,
      );
    });
    const finish = () => {
      clearInterval(timer);
      socket.destroy();
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
        ms: performance.now() - started,
      });
    };
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\r\n\r\n')) finish();
    });
    socket.on('close', finish);
    socket.on('error', reject);
    setTimeout(finish, 15_000).unref();
  });
}

describe('the proxy’s /mcp against browsers and DNS rebinding', () => {
  it('refuses a rebound Host and a foreign Origin with 403, and accepts its own', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    const { port } = running.listener;
    const own = `127.0.0.1:${port}`;
    expect((await post({ port }, { host: own })).status).toBe(200);
    expect((await post({ port }, { host: own, origin: `http://${own}` })).status).toBe(200);
    expect((await post({ port }, { host: `rebind.attacker.example:${port}` })).status).toBe(403);
    expect((await post({ port }, { host: own, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ port }, { host: own, origin: 'null' })).status).toBe(403);
  });

  it('checks Host and Origin on a non-loopback bind too (127.0.0.2), widened by allowedHosts', async () => {
    await using running = await startProxy({
      upstream: TABLE_SERVER,
      allowedHosts: ['mcp.example.com'],
    });
    await using bound = await running.proxy.listen({ host: '127.0.0.2' });
    const target = { address: '127.0.0.2', port: bound.port };
    const own = `127.0.0.2:${bound.port}`;
    expect((await post(target, { host: own })).status).toBe(200);
    expect((await post(target, { host: 'mcp.example.com' })).status).toBe(200);
    const rebound = await post(target, { host: `rebind.attacker.example:${bound.port}` });
    expect(rebound.status).toBe(403);
    expect((JSON.parse(rebound.body) as { error: { code: string } }).error.code).toBe('forbidden');
    expect((await post(target, { host: own, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(target, { host: own, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
  });
});

describe('the proxy’s /mcp body limits', () => {
  it('refuses a JSON-RPC batch over 10 and a body over 4 MiB before the upstream sees them', async () => {
    await using running = await startProxy({ upstream: TABLE_SERVER });
    const { port } = running.listener;
    const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const batch = await post(
      { port },
      {},
      JSON.stringify(Array.from({ length: 11 }, (_, i) => ping(i))),
    );
    expect(batch.status).toBe(400);
    expect((JSON.parse(batch.body) as { error: { code: number } }).error.code).toBe(-32600);
    const big = await post({ port }, {}, `{"x":"${'a'.repeat(4 * 1024 * 1024)}"}`);
    expect(big.status).toBe(413);
    // At the limit a batch is read and reaches the transport (which wants an initialize first).
    const ten = await post(
      { port },
      {},
      JSON.stringify(Array.from({ length: 10 }, (_, i) => ping(i))),
    );
    expect(ten.status).not.toBe(413);
    expect(ten.body).not.toContain('-32600');
  });

  it('refuses edge options that cannot work at creation', () => {
    for (const options of [
      { auth: { bearerTokens: ['short'] } },
      { allowedHosts: ['evil.example/path'] },
      { allowedBrowserOrigins: ['https://app.example.com/page'] },
      { requestBodyTimeoutMs: 0 },
      { maxMcpBatchSize: 1.5 },
    ]) {
      let code: unknown;
      try {
        createS2SPProxy({ upstream: TABLE_SERVER, ...options });
      } catch (error) {
        code = (error as { code?: unknown }).code;
      }
      expect(code).toBe('invalid_config');
    }
  });
});

describe('the s2sp-proxy CLI with S2SP_AUTH_TOKENS and S2SP_BODY_TIMEOUT_MS', () => {
  const BODY_TIMEOUT_MS = 1000;
  let cli: RunningCli;
  let mcpUrl: string;
  let port: number;

  beforeAll(async () => {
    cli = await startCli(TABLE_SERVER, {
      env: { S2SP_AUTH_TOKENS: TOKEN, S2SP_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) },
    });
    mcpUrl = cli.mcpUrl;
    port = Number(new URL(mcpUrl).port);
  });

  afterAll(() => cli.stop());

  it('answers /mcp without a token (or with a wrong one) 401 with a Bearer challenge', async () => {
    const missing = await post({ port }, {});
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="s2sp"');
    expect((JSON.parse(missing.body) as { error: { code: string } }).error.code).toBe(
      'unauthorized',
    );
    const wrong = await post({ port }, { authorization: `Bearer ${TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(String(wrong.headers['www-authenticate'])).toContain('error="invalid_token"');
  });

  it('serves the SDK client with the token; the resource_url redeems without one', async () => {
    const client = new Client({ name: 'edge-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const result = s2sp(await call(client, 'declared', { abstract_domains: 'city' }));
      expect(result.resource_url).toBeDefined();
      const redeemed = await fetch(result.resource_url as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(redeemed.status).toBe(200);
      expect(((await redeemed.json()) as { body: unknown[] }).body).toHaveLength(result.total_rows);
    } finally {
      await client.close();
    }
  });

  it('ends a slow body on /mcp with 408 within S2SP_BODY_TIMEOUT_MS, and cuts slow headers', async () => {
    const body = await trickle(
      port,
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n{`,
    );
    expect(body.status).toBe(408);
    expect(body.ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
    expect(body.ms).toBeLessThan(BODY_TIMEOUT_MS + 3000);
    const headers = await trickle(port, `GET /s2sp/health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n`);
    expect(headers.status).toBe(408);
    expect(headers.ms).toBeLessThan(BODY_TIMEOUT_MS + 3000);
  });
});
