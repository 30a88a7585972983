import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createS2SPServer, silentLogger } from '../src/index.js';

const TOKEN = 'edge-integration-token-0123456789';

function makeServer(options: Partial<Parameters<typeof createS2SPServer>[0]> = {}) {
  const seen: unknown[] = [];
  const server = createS2SPServer({ name: 'edge', version: '1', logger: silentLogger, ...options })
    .resourceTool('rows', { description: 'Rows.' }, (_args, ctx) => {
      seen.push(ctx.http?.authInfo);
      return [{ a: 1, b: 'x' }];
    })
    .mountSlop()
    .mountA2S(() => []);
  return { server, seen };
}

const mcpCall = (headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...headers,
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'rows', arguments: { abstract_domains: 'a' } },
  }),
});

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe('the HTTP edge of createS2SPServer', () => {
  it('auth covers /mcp, SLOP and A2S, hands the caller to tools, and leaves the data plane to its token', async () => {
    const { server, seen } = makeServer({ auth: { bearerTokens: [TOKEN] } });
    const app = server.app;
    for (const [path, init] of [
      ['/mcp', mcpCall()],
      ['/tools', {}],
      [
        '/tools/rows',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      ],
      ['/.well-known/a2s/capabilities', {}],
    ] as const) {
      const refused = await app.request(`http://localhost${path}`, init);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="s2sp"');
    }
    expect(seen).toEqual([]);
    const ok = await app.request(
      'http://localhost/mcp',
      mcpCall({ authorization: `Bearer ${TOKEN}` }),
    );
    expect(ok.status).toBe(200);
    const url = ((await ok.json()) as { result: { structuredContent: { resource_url: string } } })
      .result.structuredContent.resource_url;
    expect(seen).toEqual([{ token: TOKEN, clientId: 'bearer-token-1', scopes: [] }]);
    const redeemed = await app.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(redeemed.status).toBe(200);
    await server.close();
  });

  it('SLOP takes JSON only, within its size cap', async () => {
    const { server } = makeServer();
    const post = (headers: Record<string, string>, body: string) =>
      server.app.request('http://localhost/tools/rows', { method: 'POST', headers, body });
    expect((await post({ 'content-type': 'application/json' }, '{}')).status).toBe(200);
    expect((await post({}, '')).status).toBe(200);
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/evil+json',
    ]) {
      const refused = await post({ 'content-type': type }, '{}');
      expect(refused.status).toBe(415);
      expect(await codeOf(refused)).toBe('unsupported_media_type');
    }
    const big = await post(
      { 'content-type': 'application/json' },
      `{"x":"${'a'.repeat(1024 * 1024)}"}`,
    );
    expect(big.status).toBe(413);
    expect(await codeOf(big)).toBe('payload_too_large');
    const nbsp = await post({ 'content-type': 'application/json' }, '\u00a0');
    expect(nbsp.status).toBe(400);
    expect(await codeOf(nbsp)).toBe('invalid_request');
    await server.close();
  });

  it('a body that stalls gets 408 request_timeout on the data plane and SLOP, and /mcp answers JSON-RPC', async () => {
    const { server } = makeServer({ requestBodyTimeoutMs: 100 });
    const stalled = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{'));
        },
      });
    const send = (path: string, headers: Record<string, string> = {}) =>
      server.app.request(`http://localhost${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: stalled(),
        duplex: 'half',
      } as RequestInit);
    const data = await send(`/s2sp/data/${'A'.repeat(43)}`);
    expect(data.status).toBe(408);
    expect(await codeOf(data)).toBe('request_timeout');
    expect(data.headers.get('connection')).toBe('close');
    const slop = await send('/tools/rows');
    expect(slop.status).toBe(408);
    const mcp = await send('/mcp', { accept: 'application/json, text/event-stream' });
    expect(mcp.status).toBe(408);
    expect(((await mcp.json()) as { error: { code: number } }).error.code).toBe(-32000);
    await server.close();
  });

  it('a client that trickles its headers is cut off after requestBodyTimeoutMs; a prompt one is served', async () => {
    const { server } = makeServer({ requestBodyTimeoutMs: 300 });
    await using listening = await server.listen();
    const { port } = new URL(listening.url);
    const exchange = (trickle: boolean) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let received = '';
        socket.on('data', (chunk) => {
          received += chunk.toString();
        });
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
        socket.write('GET /s2sp/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        if (!trickle) socket.end('Connection: close\r\n\r\n');
        else {
          // One header line every 100 ms, never the blank line that ends them.
          const timer = setInterval(() => {
            if (socket.writable) socket.write('X-Slow: 1\r\n');
          }, 100);
          socket.on('close', () => clearInterval(timer));
          setTimeout(() => socket.destroy(), 10_000).unref();
        }
      });
    expect(await exchange(false)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await exchange(true)).toMatch(/^HTTP\/1\.1 408 /);
    await server.close();
  });

  it('allowedHosts and allowedBrowserOrigins widen what /mcp answers; publicUrl counts as own', async () => {
    const { server } = makeServer({
      publicUrl: 'https://data.example.com',
      allowedHosts: ['mcp.example.com'],
      allowedBrowserOrigins: ['https://app.example.com'],
    });
    const status = async (url: string, headers: Record<string, string> = {}) =>
      (await server.app.request(url, mcpCall(headers))).status;
    expect(await status('http://mcp.example.com/mcp')).toBe(200);
    expect(await status('https://data.example.com/mcp')).toBe(200);
    expect(await status('http://mcp.example.com/mcp', { origin: 'https://app.example.com' })).toBe(
      200,
    );
    expect(await status('http://other.example.com/mcp')).toBe(403);
    expect(await status('http://mcp.example.com/mcp', { origin: 'https://evil.example' })).toBe(
      403,
    );
    await server.close();
  });
});
