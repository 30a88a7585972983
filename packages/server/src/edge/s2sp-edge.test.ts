import { connect } from 'node:net';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createS2SPEdge } from './s2sp-edge.js';

const TOKEN = 'edge-unit-token-0123456789';

/** An app behind the edge: /mcp echoes the parsed body and the caller; a data-plane route. */
function appBehind(options: Parameters<typeof createS2SPEdge>[0] = {}) {
  const edge = createS2SPEdge(options);
  const app = edge.mount(new Hono());
  app.post('/mcp', async (c) => {
    const read = await edge.readMcpBody(c);
    if (!read.ok) return read.response;
    return c.json({ body: read.body, caller: edge.authInfo(c)?.clientId ?? null });
  });
  app.post('/s2sp/data/:token', (c) => c.json({ redeemed: true }));
  // A session-keeping endpoint: POST /session opens one for the caller, GET /session/:id finds it.
  const sessions = new Map<string, { readonly client: string }>();
  app.post('/session', (c) => {
    const id = `s${sessions.size + 1}`;
    sessions.set(id, { client: edge.caller(c) });
    return c.json({ id, caller: edge.caller(c) });
  });
  app.get('/session/:id', (c) => {
    const session = edge.sessionOf(sessions, c.req.param('id'), c);
    return session ? c.json(session) : c.json({ error: 'no such session' }, 404);
  });
  app.get('/boom', () => {
    throw new Error('secret detail');
  });
  return { edge, app };
}

const post = (app: Hono, path: string, body: string, headers: Record<string, string> = {}) =>
  app.request(`http://localhost${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

const code = async (response: Response) =>
  ((await response.json()) as { error: { code: unknown } }).error.code;

describe('createS2SPEdge', () => {
  it('lets a bearer token through to /mcp and names the caller; 401 without one; data plane open', async () => {
    const { app } = appBehind({ auth: { bearerTokens: [TOKEN] } });
    const ok = await post(app, '/mcp', '{"a":1}', { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ body: { a: 1 }, caller: 'bearer-token-1' });
    const refused = await post(app, '/mcp', '{}');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="s2sp"');
    expect(await code(refused)).toBe('unauthorized');
    expect((await post(app, `/s2sp/data/${'A'.repeat(43)}`, '{}')).status).toBe(200);
  });

  it('refuses a rebound Host and a cross-site Origin with 403 before auth', async () => {
    const { app } = appBehind({
      auth: { bearerTokens: [TOKEN] },
      allowedHosts: ['mcp.example.com'],
    });
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect(
      (
        await app.request('http://mcp.example.com/mcp', {
          method: 'POST',
          headers: auth,
          body: '{}',
        })
      ).status,
    ).toBe(200);
    const rebound = await app.request('http://rebind.example/mcp', { method: 'POST', body: '{}' });
    expect(rebound.status).toBe(403);
    expect(await code(rebound)).toBe('forbidden');
    const cross = await post(app, '/mcp', '{}', { ...auth, origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
  });

  it('caps MCP bodies and batches with JSON-RPC errors; a batch at the limit passes', async () => {
    const { app } = appBehind({ maxMcpRequestBytes: 100, maxMcpBatchSize: 2 });
    const big = await post(app, '/mcp', `"${'a'.repeat(200)}"`);
    expect(big.status).toBe(413);
    const batch = await post(app, '/mcp', '[1,2,3]');
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: { code: number } }).error.code).toBe(-32600);
    expect((await post(app, '/mcp', '[1,2]')).status).toBe(200);
    const broken = await post(app, '/mcp', '{');
    expect(((await broken.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('names the caller by its token, and finds a session only for the caller that opened it', async () => {
    const second = 'edge-unit-token-second-0123456789';
    const { app } = appBehind({ auth: { bearerTokens: [TOKEN, second] } });
    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    const opened = await post(app, '/session', '{}', as(TOKEN));
    expect(await opened.json()).toEqual({ id: 's1', caller: 'client:bearer-token-1' });
    const own = await app.request('http://localhost/session/s1', { headers: as(TOKEN) });
    expect(await own.json()).toEqual({ client: 'client:bearer-token-1' });
    const stranger = await app.request('http://localhost/session/s1', { headers: as(second) });
    const unknown = await app.request('http://localhost/session/s9', { headers: as(second) });
    expect([stranger.status, await stranger.text()]).toEqual([404, await unknown.text()]);
    // Without auth an in-process request has no address: one shared name.
    const open = appBehind().app;
    expect(await (await post(open, '/session', '{}')).json()).toMatchObject({
      caller: 'anonymous',
    });
  });

  it('calls whenStreamEnds once: at the end of the body, on cancel, or at once without a body', async () => {
    const { edge } = appBehind();
    let ended = 0;
    const count = () => {
      ended++;
    };
    await edge.whenStreamEnds(new Response('whole'), count).text();
    expect(ended).toBe(1);
    const cancelled = edge.whenStreamEnds(new Response('never read'), count);
    await cancelled.body?.cancel();
    await cancelled.body?.cancel();
    expect(ended).toBe(2);
    edge.whenStreamEnds(new Response(null, { status: 204 }), count);
    expect(ended).toBe(3);
  });

  it('renders errors from the one table without their messages, and 404s in the same shape', async () => {
    const { app } = appBehind();
    const boom = await app.request('http://localhost/boom');
    expect(boom.status).toBe(500);
    expect(JSON.stringify(await boom.json())).not.toContain('secret detail');
    const missing = await app.request('http://localhost/nowhere');
    expect(missing.status).toBe(404);
    expect(await code(missing)).toBe('not_found');
  });

  it('listens with the read timeouts: a slow body gets 408, slow headers are cut; the bound host is accepted', async () => {
    const { edge, app } = appBehind({ requestBodyTimeoutMs: 300 });
    await using listener = await edge.listen(app);
    const raw = (head: string, more: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(listener.port, '127.0.0.1');
        let text = '';
        const timer = setInterval(() => socket.writable && socket.write(more), 100);
        socket.on('data', (chunk) => {
          text += chunk.toString();
        });
        socket.on('close', () => {
          clearInterval(timer);
          resolve(text);
        });
        socket.on('error', reject);
        socket.write(head);
        setTimeout(() => socket.destroy(), 5000).unref();
      });
    const body = await raw(
      `POST /mcp HTTP/1.1\r\nHost: ${listener.hosts[0]}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{`,
      ' ',
    );
    expect(body).toMatch(/^HTTP\/1\.1 408 /);
    const headers = await raw(
      `GET /nowhere HTTP/1.1\r\nHost: ${listener.hosts[0]}\r\n`,
      'X-Slow: 1\r\n',
    );
    expect(headers).toMatch(/^HTTP\/1\.1 408 /);
    const own = await fetch(`${listener.url}/mcp`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(own.status).toBe(200);
  });
});
