// Figures 20.5, 21.3, 22.5–22.6: the proxy (`@s2sp/proxy`) behind the servers' one HTTP edge,
// probed the way figures 20–22 probe a server: hostile Host, Origin and Sec-Fetch-Site headers and
// preflight-free content types over a real socket; bearer auth from S2SP_AUTH_TOKENS (read with
// the servers' own reader); a 64 MiB body, a slow body and slow headers.
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { S2SPProxyOptions } from '@s2sp/proxy';
import { loadEdgeEnv } from '@s2sp/server/env';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { send, slowBody, slowHeaders } from './support/edge-probes.js';
import { startQuietProxy } from './support/proxy.js';

const UPSTREAM = {
  kind: 'stdio' as const,
  command: process.execPath,
  args: [
    fileURLToPath(new URL('../../packages/proxy/test/fixtures/table-server.mjs', import.meta.url)),
  ],
};
const TOKEN = 'proxy-edge-token-0123456789abcdef';
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'r', version: '1' },
  },
});

async function startProxy(options: Partial<S2SPProxyOptions> = {}) {
  const { proxy, listener } = await startQuietProxy({ upstream: UPSTREAM, ...options });
  const host = `127.0.0.1:${listener.port}`;
  /** Mints a token through /mcp with the SDK client; returns its data-plane path. */
  const mint = async (headers: Record<string, string> = {}) => {
    const client = new Client({ name: 'reliability', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(listener.mcpUrl), { requestInit: { headers } }),
    );
    try {
      const result = (await client.callTool({
        name: 'declared',
        arguments: { abstract_domains: 'city' },
      })) as { structuredContent?: { resource_url?: string } };
      return new URL(result.structuredContent?.resource_url ?? '').pathname;
    } finally {
      await client.close();
    }
  };
  return {
    proxy,
    listener,
    host,
    mint,
    async [Symbol.asyncDispose]() {
      await proxy.close();
    },
  };
}

describe('figure 20 (proxy): browsers and DNS rebinding', () => {
  it('refuses rebound and cross-site requests on /mcp and the data plane', async () => {
    await using edge = await startProxy();
    const { port } = edge.listener;
    const good = edge.host;
    const hostile: { what: string; headers: Record<string, string> }[] = [
      { what: 'rebound Host', headers: { host: `rebind.attacker.example:${port}` } },
      {
        what: 'rebound Host and Origin',
        headers: {
          host: `rebind.attacker.example:${port}`,
          origin: `http://rebind.attacker.example:${port}`,
        },
      },
      { what: 'cross-site Origin', headers: { host: good, origin: 'https://evil.example' } },
      { what: 'Origin null', headers: { host: good, origin: 'null' } },
      { what: 'other loopback port', headers: { host: good, origin: 'http://localhost:1' } },
      {
        what: 'Sec-Fetch-Site cross-site',
        headers: { host: good, 'sec-fetch-site': 'cross-site' },
      },
      { what: 'Sec-Fetch-Site same-site', headers: { host: good, 'sec-fetch-site': 'same-site' } },
    ];
    const attacks = [
      ...hostile.map((h) => ({ headers: { ...MCP_HEADERS, ...h.headers } })),
      ...['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'].map(
        (type) => ({ headers: { host: good, accept: MCP_HEADERS.accept, 'content-type': type } }),
      ),
    ];
    let refused = 0;
    for (const attack of attacks) {
      const answer = await send(port, '/mcp', { headers: attack.headers, body: INITIALIZE });
      if (answer.status === 403 || answer.status === 415) refused++;
    }
    const dataAttacks = hostile.filter((h) => h.what !== 'rebound Host');
    let dataRefused = 0;
    let dataKept = 0;
    for (const h of dataAttacks) {
      const path = await edge.mint();
      const answer = await send(port, path, {
        headers: { 'content-type': 'application/json', ...h.headers },
        body: '{}',
      });
      if (answer.status === 403) dataRefused++;
      const after = await send(port, path, {
        headers: { 'content-type': 'application/json', host: good },
        body: '{}',
      });
      if (after.status === 200) dataKept++;
    }
    const control = await send(port, '/mcp', {
      headers: { ...MCP_HEADERS, host: good, origin: `http://${good}` },
      body: INITIALIZE,
    });
    recordFigure({
      id: '20.5',
      title: `Proxy: the probes of 20.1 against its /mcp (${attacks.length} requests) refused with 403/415 / the 20.3 cross-site requests on its data plane (${dataAttacks.length}) refused with 403, tokens still redeemable / own host and origin answered 200`,
      value: `${refused}/${attacks.length} / ${dataRefused}/${dataAttacks.length}, ${dataKept}/${dataAttacks.length} / ${control.status}`,
      target: `${attacks.length}/${attacks.length} / ${dataAttacks.length}/${dataAttacks.length}, ${dataAttacks.length}/${dataAttacks.length} / 200`,
      met:
        refused === attacks.length &&
        dataRefused === dataAttacks.length &&
        dataKept === dataAttacks.length &&
        control.status === 200,
    });
    expect([refused, dataRefused, dataKept, control.status]).toEqual([
      attacks.length,
      dataAttacks.length,
      dataAttacks.length,
      200,
    ]);
  });
});

describe('figure 21 (proxy): authentication', () => {
  it('S2SP_AUTH_TOKENS covers /mcp; the data plane stays capability-based', async () => {
    await using edge = await startProxy(loadEdgeEnv({ S2SP_AUTH_TOKENS: TOKEN }));
    const { port } = edge.listener;
    const credentials: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-0123456789abcdef' },
      { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
      { authorization: `Bearer ${TOKEN}x` },
    ];
    let unauthorized = 0;
    let challenged = 0;
    for (const credential of credentials) {
      const answer = await send(port, '/mcp', {
        headers: { ...MCP_HEADERS, host: edge.host, ...credential },
        body: INITIALIZE,
      });
      if (answer.status === 401) unauthorized++;
      if (String(answer.headers['www-authenticate'] ?? '').startsWith('Bearer')) challenged++;
    }
    const path = await edge.mint({ authorization: `Bearer ${TOKEN}` });
    const redeemed = await send(port, path, {
      headers: { 'content-type': 'application/json', host: edge.host },
      body: '{}',
    });
    const n = credentials.length;
    recordFigure({
      id: '21.3',
      title: `Proxy started with S2SP_AUTH_TOKENS: /mcp requests without a token, with a wrong one, a Basic one, or a token with one extra character (${n}) — answered 401 / with a Bearer WWW-Authenticate challenge; with the token the SDK client called a table tool and its resource_url redeemed without credentials`,
      value: `${unauthorized}/${n} / ${challenged}/${n}; ${redeemed.status}`,
      target: `${n}/${n} / ${n}/${n}; 200`,
      met: unauthorized === n && challenged === n && redeemed.status === 200,
    });
    expect([unauthorized, challenged, redeemed.status]).toEqual([n, n, 200]);
  });
});

describe('figure 22 (proxy): request bodies and headers at the edge', () => {
  it('caps a 64 MiB body on /mcp before the whole body', async () => {
    await using edge = await startProxy();
    const { port } = edge.listener;
    const big = 64 * 1024 * 1024;
    const flood = await new Promise<{ status: number; sentMiB: number }>((resolve, reject) => {
      let sent = 0;
      let status = 0;
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: { ...MCP_HEADERS, host: edge.host, 'transfer-encoding': 'chunked' },
        },
        (res) => {
          status = res.statusCode ?? 0;
          res.resume();
          res.on('end', () => {
            req.destroy();
            resolve({ status, sentMiB: sent / 1024 / 1024 });
          });
        },
      );
      req.on('error', () => resolve({ status, sentMiB: sent / 1024 / 1024 }));
      const pump = () => {
        while (sent < big && status === 0) {
          sent += chunk.byteLength;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (sent >= big) req.end();
      };
      pump();
      setTimeout(() => reject(new Error('no answer')), 60_000).unref();
    });
    const batch = await send(port, '/mcp', {
      headers: { ...MCP_HEADERS, host: edge.host },
      body: JSON.stringify(
        Array.from({ length: 11 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' })),
      ),
    });
    recordFigure({
      id: '22.5',
      title:
        'Proxy: a 64 MiB chunked body to /mcp (cap 4 MiB): status and MiB the client had written when the answer came; a JSON-RPC batch of 11 (limit 10): status / JSON-RPC code',
      value: `${flood.status}, ${flood.sentMiB.toFixed(1)} MiB; ${batch.status} / ${(JSON.parse(batch.body) as { error?: { code?: number } }).error?.code}`,
      target: '413 before the whole body; 400 / -32600',
      met: flood.status === 413 && flood.sentMiB < 64 && batch.status === 400,
    });
    expect([flood.status, batch.status]).toEqual([413, 400]);
  });

  it('a slow body (1 byte/s) and slow headers are cut off by S2SP_BODY_TIMEOUT_MS on /mcp and the data plane', async () => {
    await using edge = await startProxy(loadEdgeEnv({ S2SP_BODY_TIMEOUT_MS: '2000' }));
    const { port } = edge.listener;
    const path = await edge.mint();
    const json = 'content-type: application/json\r\ncontent-length: 1000\r\n';
    const mcp = await slowBody(
      port,
      '/mcp',
      `${json}accept: application/json, text/event-stream\r\n`,
      '{',
    );
    const data = await slowBody(port, path, json, '{');
    const headers = await slowHeaders(port, '/s2sp/health');
    const after = await send(port, path, {
      headers: { host: edge.host, 'content-type': 'application/json' },
      body: '{}',
    });
    const all = [mcp, data, headers];
    recordFigure({
      id: '22.6',
      title:
        'Proxy with S2SP_BODY_TIMEOUT_MS=2000: slow body (headers, then 1 byte/s of a 1000-byte body) on /mcp and on the data plane, and headers at one line a second — status and time to the answer; the token redeemable afterwards',
      value: `${all.map((a) => `${a.status} in ${Math.round(a.ms)} ms`).join('; ')}; ${after.status === 200 ? 'yes' : 'no'}`,
      target: '408 in 2000–3500 ms each; yes',
      met:
        all.every((a) => a.status === 408 && a.ms >= 1900 && a.ms < 3500) && after.status === 200,
    });
    expect(all.map((a) => a.status)).toEqual([408, 408, 408]);
    for (const a of all) expect(a.ms).toBeLessThan(6000);
    expect(after.status).toBe(200);
  });
});
