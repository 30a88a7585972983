// Figures 20–22: the HTTP edge. Attacks a browser page, a DNS-rebinding
// page and a careless or hostile client can make on a server as shipped, each over a real socket
// (node:http with hand-set Host, Origin and Sec-Fetch-Site headers, raw TCP for slow bodies) and,
// for the cross-site page, from real headless Chromium:
// - 20: /mcp, SLOP, A2S and the data plane refuse cross-site and rebound requests (Host, Origin,
//   Sec-Fetch-Site, non-JSON content types) before any tool runs or any token is used;
// - 21: with `auth` configured, /mcp, SLOP and A2S need a bearer token (or the verifier's yes) and
//   answer 401 with WWW-Authenticate; the data plane stays capability-based;
// - 22: data-plane body rules exact (JSON whitespace only, application/json with charset=utf-8 at
//   most), body caps on /mcp and SLOP, and a read timeout for slow bodies on every endpoint.
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createS2SPServer, type ListeningServer, silentLogger } from '@s2sp/server';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { send, slowBody } from './support/edge-probes.js';

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

function toolCall(name: string, args: Record<string, unknown>): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args },
  });
}

const ROWS = [
  { kind: 'a', body: 'one' },
  { kind: 'b', body: 'two' },
];

const AUTH_TOKEN = 'edge-test-token-0123456789abcdef';

/** A server with one resource tool that counts its calls, SLOP and A2S mounted, on a port. */
async function startServer(options: Record<string, unknown> = {}) {
  let calls = 0;
  const server = createS2SPServer({
    name: 'edge',
    version: '1',
    logger: silentLogger,
    ...options,
  })
    .resourceTool('get_rows', { description: 'Rows.' }, () => {
      calls++;
      return ROWS;
    })
    .mountSlop()
    .mountA2S(() => []);
  const listening: ListeningServer = await server.listen({ host: '127.0.0.1' });
  const host = `127.0.0.1:${listening.port}`;
  /** Mints a token through /mcp (trusted host, no Origin) and returns its data-plane path. */
  const mint = async (headers: Record<string, string> = {}): Promise<string> => {
    const answer = await send(listening.port, '/mcp', {
      headers: { ...MCP_HEADERS, host, ...headers },
      body: toolCall('get_rows', { abstract_domains: 'kind' }),
    });
    const url = (
      JSON.parse(answer.body) as { result: { structuredContent: { resource_url: string } } }
    ).result.structuredContent.resource_url;
    calls--;
    return new URL(url).pathname;
  };
  return {
    server,
    listening,
    host,
    mint,
    calls: () => calls,
    async [Symbol.asyncDispose]() {
      await server.close();
    },
  };
}

describe('figure 20: browsers and DNS rebinding', () => {
  it('refuses rebound and cross-site requests on /mcp, SLOP, A2S and the data plane', async () => {
    await using edge = await startServer();
    const { port } = edge.listening;
    const good = edge.host;
    const attacks: {
      name: string;
      path: string;
      method?: string;
      headers: Record<string, string>;
      body?: string;
    }[] = [];
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
    for (const h of hostile) {
      attacks.push({
        name: `/mcp ${h.what}`,
        path: '/mcp',
        headers: { ...MCP_HEADERS, ...h.headers },
        body: toolCall('get_rows', {}),
      });
      attacks.push({
        name: `SLOP ${h.what}`,
        path: '/tools/get_rows',
        headers: { 'content-type': 'application/json', ...h.headers },
        body: '{}',
      });
      attacks.push({
        name: `A2S ${h.what}`,
        path: '/.well-known/a2s/capabilities',
        method: 'GET',
        headers: h.headers,
      });
    }
    // Simple requests a page can send without a CORS preflight: non-JSON content types.
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      attacks.push({
        name: `SLOP ${type}`,
        path: '/tools/get_rows',
        headers: { host: good, 'content-type': type },
        body: '{}',
      });
      attacks.push({
        name: `/mcp ${type}`,
        path: '/mcp',
        headers: { host: good, accept: MCP_HEADERS.accept, 'content-type': type },
        body: toolCall('get_rows', {}),
      });
    }
    const answers: { name: string; status: number }[] = [];
    for (const attack of attacks) {
      const answer = await send(port, attack.path, attack);
      answers.push({ name: attack.name, status: answer.status });
    }
    const refused = answers.filter((a) => a.status === 403 || a.status === 415);

    // The data plane: cross-site requests are refused before the token is looked up.
    const dataAttacks = hostile.filter((h) => h.what !== 'rebound Host');
    let dataRefused = 0;
    let dataTokenKept = 0;
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
      if (after.status === 200) dataTokenKept++;
    }

    // Positive controls: the same endpoints from the server's own host, and its own origin.
    const controls = [
      await send(port, '/mcp', {
        headers: { ...MCP_HEADERS, host: good, origin: `http://${good}` },
        body: toolCall('get_rows', {}),
      }),
      await send(port, '/tools/get_rows', {
        headers: {
          'content-type': 'application/json',
          host: good,
          'sec-fetch-site': 'same-origin',
        },
        body: '{}',
      }),
      await send(port, '/.well-known/a2s/capabilities', {
        method: 'GET',
        headers: { host: `localhost:${port}` },
      }),
    ];
    const handlerRuns = edge.calls();
    recordFigure({
      id: '20.1',
      title: `Rebound Host, cross-site Origin (other site, null, other loopback port), Sec-Fetch-Site cross-site/same-site and preflight-free content types against /mcp, SLOP and A2S (${attacks.length} requests over a real socket): refused with 403/415`,
      value: `${refused.length}/${attacks.length}`,
      target: `${attacks.length}/${attacks.length}`,
      met: refused.length === attacks.length,
    });
    recordFigure({
      id: '20.2',
      title:
        'Tool handler runs caused by those requests (positive controls from the own host and origin: 2 runs, 3 × 200)',
      value: handlerRuns - 2,
      target: '0',
      met: handlerRuns === 2 && controls.every((c) => c.status === 200),
    });
    recordFigure({
      id: '20.3',
      title: `Data plane: cross-site requests (${dataAttacks.length} kinds) refused with 403 / tokens still redeemable afterwards`,
      value: `${dataRefused}/${dataAttacks.length} / ${dataTokenKept}/${dataAttacks.length}`,
      target: `${dataAttacks.length}/${dataAttacks.length} / ${dataAttacks.length}/${dataAttacks.length}`,
      met: dataRefused === dataAttacks.length && dataTokenKept === dataAttacks.length,
    });
    expect(answers.filter((a) => a.status !== 403 && a.status !== 415)).toEqual([]);
    expect(controls.map((c) => c.status)).toEqual([200, 200, 200]);
    expect(handlerRuns).toBe(2);
    expect([dataRefused, dataTokenKept]).toEqual([dataAttacks.length, dataAttacks.length]);
  });

  it('a page on another origin in headless Chromium cannot make the server run a tool', async () => {
    const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
    if (!existsSync(chromiumPath)) {
      throw new Error(`Chromium not found at ${chromiumPath}. Install it or set CHROMIUM_PATH.`);
    }
    const { chromium } = await import('playwright-core');
    await using edge = await startServer();
    const path = await edge.mint();
    // The attacker's page: a second server on another loopback port.
    const page = createS2SPServer({ name: 'page', version: '1', logger: silentLogger });
    page.app.get('/attack', (c) => c.html('<!doctype html><title>attack</title>'));
    await using pageServer = await page.listen({ host: '127.0.0.1' });
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    let sent = 0;
    try {
      const tab = await browser.newPage();
      await tab.goto(`${pageServer.url}/attack`);
      const target = edge.listening.url;
      sent = await tab.evaluate(
        async ({ target, path, call }) => {
          const shots: RequestInit[] = [
            {
              method: 'POST',
              mode: 'no-cors',
              headers: { 'content-type': 'text/plain' },
              body: '{}',
            },
            { method: 'POST', mode: 'no-cors', body: '{}' },
            {
              method: 'POST',
              mode: 'no-cors',
              headers: { 'content-type': 'text/plain' },
              body: call,
            },
          ];
          const urls = [`${target}/tools/get_rows`, `${target}${path}`, `${target}/mcp`];
          let n = 0;
          for (const url of urls)
            for (const init of shots) {
              await fetch(url, init).catch(() => undefined);
              n++;
            }
          // A form post, the oldest cross-site request there is.
          const form = document.createElement('form');
          form.method = 'POST';
          form.action = `${target}/tools/get_rows`;
          form.enctype = 'text/plain';
          document.body.append(form);
          form.submit();
          return n + 1;
        },
        { target, path, call: toolCall('get_rows', {}) },
      );
      await tab.waitForTimeout(500);
    } finally {
      await browser.close();
    }
    const runs = edge.calls();
    const after = await send(edge.listening.port, path, {
      headers: { 'content-type': 'application/json', host: edge.host },
      body: '{}',
    });
    recordFigure({
      id: '20.4',
      title: `Real headless Chromium, page on another loopback origin: no-cors fetches (text/plain, no type) and a text/plain form post to SLOP, /mcp and the data plane (${sent} requests) — tool runs / the token still redeemable afterwards`,
      value: `${runs} / ${after.status === 200 ? 'yes' : `no (${after.status})`}`,
      target: '0 / yes',
      met: runs === 0 && after.status === 200,
    });
    expect(runs).toBe(0);
    expect(after.status).toBe(200);
  });
});

describe('figure 21: authentication over the whole server', () => {
  it('bearer tokens and a verifier cover /mcp, SLOP and A2S; the data plane stays capability-based', async () => {
    const verified: string[] = [];
    await using edge = await startServer({
      auth: {
        bearerTokens: [AUTH_TOKEN],
        verifyToken: (token: string) => {
          verified.push(token);
          return token === 'from-the-verifier-0123456789'
            ? { token, clientId: 'verifier', scopes: [] }
            : undefined;
        },
      },
    });
    const { port } = edge.listening;
    const host = edge.host;
    const endpoints: {
      name: string;
      path: string;
      method?: string;
      headers: Record<string, string>;
      body?: string;
    }[] = [
      {
        name: '/mcp',
        path: '/mcp',
        headers: { ...MCP_HEADERS, host },
        body: toolCall('get_rows', {}),
      },
      {
        name: 'SLOP call',
        path: '/tools/get_rows',
        headers: { 'content-type': 'application/json', host },
        body: '{}',
      },
      { name: 'SLOP list', path: '/tools', method: 'GET', headers: { host } },
      { name: 'A2S', path: '/.well-known/a2s/capabilities', method: 'GET', headers: { host } },
    ];
    const credentials: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-0123456789abcdef' },
      { authorization: `Basic ${Buffer.from(`x:${AUTH_TOKEN}`).toString('base64')}` },
      { authorization: `Bearer ${AUTH_TOKEN}x` },
    ];
    let unauthorized = 0;
    let withChallenge = 0;
    let total = 0;
    for (const endpoint of endpoints)
      for (const credential of credentials) {
        const answer = await send(port, endpoint.path, {
          ...endpoint,
          headers: { ...endpoint.headers, ...credential },
        });
        total++;
        if (answer.status === 401) unauthorized++;
        if (String(answer.headers['www-authenticate'] ?? '').startsWith('Bearer')) withChallenge++;
      }
    const runsWithout = edge.calls();
    const allowed: number[] = [];
    for (const endpoint of endpoints)
      for (const token of [AUTH_TOKEN, 'from-the-verifier-0123456789']) {
        const answer = await send(port, endpoint.path, {
          ...endpoint,
          headers: { ...endpoint.headers, authorization: `Bearer ${token}` },
        });
        allowed.push(answer.status);
      }
    const path = await edge.mint({ authorization: `Bearer ${AUTH_TOKEN}` });
    const redeemed = await send(port, path, {
      headers: { 'content-type': 'application/json', host },
      body: '{}',
    });
    recordFigure({
      id: '21.1',
      title: `Auth configured (one bearer token plus a verifier): requests to /mcp, SLOP (call, list) and A2S without a token, with a wrong one, a Basic one, or a token with one extra character (${total}) — answered 401 / with a Bearer WWW-Authenticate challenge / tool runs`,
      value: `${unauthorized}/${total} / ${withChallenge}/${total} / ${runsWithout}`,
      target: `${total}/${total} / ${total}/${total} / 0`,
      met: unauthorized === total && withChallenge === total && runsWithout === 0,
    });
    recordFigure({
      id: '21.2',
      title: `The same endpoints with the configured token and with a token the verifier accepts (${allowed.length}) answered 200; a resource_url minted that way redeemed without credentials`,
      value: `${allowed.filter((s) => s === 200).length}/${allowed.length}; ${redeemed.status}`,
      target: `${allowed.length}/${allowed.length}; 200`,
      met: allowed.every((s) => s === 200) && redeemed.status === 200,
    });
    expect([unauthorized, withChallenge, runsWithout]).toEqual([total, total, 0]);
    expect(allowed.every((s) => s === 200)).toBe(true);
    expect(redeemed.status).toBe(200);
  });
});

describe('figure 22: request bodies at the edge', () => {
  it('data-plane bodies: JSON whitespace only and application/json (charset=utf-8) only', async () => {
    await using edge = await startServer();
    const { port } = edge.listening;
    const cases = [
      { name: 'U+00A0 only', type: 'application/json', body: '\u00a0', want: 400 },
      { name: 'U+2028 only', type: 'application/json', body: '\u2028', want: 400 },
      { name: 'U+FEFF only', type: 'application/json', body: '\ufeff', want: 400 },
      { name: 'U+3000 only', type: 'application/json', body: '\u3000', want: 400 },
      { name: 'U+00A0 around {}', type: 'application/json', body: '\u00a0{}\u00a0', want: 400 },
      { name: 'vertical tab', type: 'application/json', body: '\v', want: 400 },
      { name: 'text/plain {}', type: 'text/plain', body: '{}', want: 415 },
      { name: 'text/plain U+00A0', type: 'text/plain', body: '\u00a0', want: 415 },
      { name: 'application/evil+json', type: 'application/evil+json', body: '{}', want: 415 },
      { name: 'charset=utf-16', type: 'application/json; charset=utf-16', body: '{}', want: 415 },
      {
        name: 'charset=latin1',
        type: 'application/json; charset=iso-8859-1',
        body: '{}',
        want: 415,
      },
      { name: 'extra parameter', type: 'application/json; x=1', body: '{}', want: 415 },
      { name: 'application/jsonx', type: 'application/jsonx', body: '{}', want: 415 },
    ];
    let exact = 0;
    let kept = 0;
    const wrong: string[] = [];
    for (const c of cases) {
      const path = await edge.mint();
      const answer = await send(port, path, {
        headers: { host: edge.host, 'content-type': c.type },
        body: c.body,
      });
      if (answer.status === c.want) exact++;
      else wrong.push(`${c.name}: ${answer.status}`);
      const after = await send(port, path, {
        headers: { host: edge.host, 'content-type': 'application/json' },
        body: '{}',
      });
      if (after.status === 200) kept++;
    }
    // Positive controls: JSON whitespace, charset=utf-8 in any case, quoted; empty bodies.
    const goodCases = [
      { type: 'application/json', body: ' \t\r\n' },
      { type: 'application/json; charset=utf-8', body: '{}' },
      { type: 'Application/JSON; Charset="UTF-8"', body: '\n{}\n' },
      { type: 'text/plain;charset=UTF-8', body: '' },
    ];
    const goodStatuses: number[] = [];
    for (const g of goodCases) {
      const path = await edge.mint();
      const answer = await send(port, path, {
        headers: { host: edge.host, 'content-type': g.type },
        body: g.body,
      });
      goodStatuses.push(answer.status);
    }
    recordFigure({
      id: '22.1',
      title: `Data-plane bodies of non-JSON whitespace (U+00A0, U+2028, U+FEFF, U+3000, VT) → 400, and text/plain, +json, charset=utf-16/latin1, extra parameters → 415 (${cases.length} cases): exact status / token still redeemable afterwards`,
      value: `${exact}/${cases.length} / ${kept}/${cases.length}`,
      target: `${cases.length}/${cases.length} / ${cases.length}/${cases.length}`,
      met: exact === cases.length && kept === cases.length,
    });
    recordFigure({
      id: '22.2',
      title:
        'Positive controls: JSON whitespace only, charset=utf-8 (any case, quoted), an empty text/plain body — answered 200',
      value: `${goodStatuses.filter((s) => s === 200).length}/${goodCases.length}`,
      target: `${goodCases.length}/${goodCases.length}`,
      met: goodStatuses.every((s) => s === 200),
    });
    expect(wrong).toEqual([]);
    expect(kept).toBe(cases.length);
    expect(goodStatuses).toEqual(goodCases.map(() => 200));
  });

  it('body caps on SLOP and /mcp, without reading the whole body', async () => {
    await using edge = await startServer();
    const { port } = edge.listening;
    const big = 64 * 1024 * 1024;
    /** Streams `big` bytes chunked; returns the status and how many bytes went out first. */
    const flood = (path: string, headers: Record<string, string>) =>
      new Promise<{ status: number; sentMiB: number }>((resolve, reject) => {
        let sent = 0;
        let status = 0;
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path,
            method: 'POST',
            headers: { ...headers, 'transfer-encoding': 'chunked' },
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
    const slop = await flood('/tools/get_rows', {
      host: edge.host,
      'content-type': 'application/json',
    });
    const mcp = await flood('/mcp', { ...MCP_HEADERS, host: edge.host });
    recordFigure({
      id: '22.3',
      title:
        'A 64 MiB chunked body to SLOP (cap 1 MiB) and to /mcp (cap 4 MiB): status; MiB the client had written when the answer came',
      value: `SLOP ${slop.status}, ${slop.sentMiB.toFixed(1)} MiB; /mcp ${mcp.status}, ${mcp.sentMiB.toFixed(1)} MiB`,
      target: '413 before the whole body',
      met: slop.status === 413 && mcp.status === 413 && slop.sentMiB < 64 && mcp.sentMiB < 64,
    });
    expect([slop.status, mcp.status]).toEqual([413, 413]);
    expect(edge.calls()).toBe(0);
  });

  it('a slow body (1 byte/s) is cut off by the read timeout on the data plane, SLOP and /mcp', async () => {
    await using edge = await startServer({ requestBodyTimeoutMs: 2000 });
    const { port } = edge.listening;
    const path = await edge.mint();
    const json = 'content-type: application/json\r\ncontent-length: 1000\r\n';
    const data = await slowBody(port, path, json, '{');
    const slop = await slowBody(port, '/tools/get_rows', json, '{');
    const mcp = await slowBody(
      port,
      '/mcp',
      `${json}accept: application/json, text/event-stream\r\n`,
      '{',
    );
    const after = await send(port, path, {
      headers: { host: edge.host, 'content-type': 'application/json' },
      body: '{}',
    });
    const all = [data, slop, mcp];
    recordFigure({
      id: '22.4',
      title:
        'Slow body (headers, then 1 byte/s of a 1000-byte body) with a 2 s read timeout: status and time to the answer on the data plane, SLOP, /mcp; the token redeemable afterwards',
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
