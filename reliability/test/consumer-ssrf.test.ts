// Figures 11 and 12: the consumer is the part of S2SP that fetches a URL an LLM handed it, so it
// is the SSRF surface. Every crafted resource_url below goes through a real consumer tool, called
// by the official MCP SDK client over Streamable HTTP, and must be refused before any socket
// opens: the consumer's fetch is never called, and two loopback canaries (the allowed origin and
// a second, forbidden one) count zero connections. A valid URL to the allowed canary is the
// positive control: one call, one connection. Redirects are never followed, and the "public
// destinations only" mode refuses private, loopback, link-local and IPv4-mapped addresses.
//
// The loopback guard (test/setup.ts) backs all of this up: a connection to anything but
// 127.0.0.1/::1 would be refused and fail the file, so a validation bug cannot reach
// 169.254.169.254 for real.

import { generateToken } from '@s2sp/core';
import {
  type ConsumerFetchOptions,
  createS2SPServer,
  type S2SPServer,
  silentLogger,
} from '@s2sp/server';
import {
  connectMcpClient,
  startHttpServer,
  type TestMcpClient,
  type TestServer,
  textOf,
} from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';

const token = generateToken();
let allowed: TestServer; // canary A: the one allowed origin; answers 404 to anything
let forbidden: TestServer; // canary B: a loopback server the consumer must never reach
let consumer: S2SPServer;
let agent: TestMcpClient;
const fetched: string[] = [];
let handlerRuns = 0;

/** The consumer's fetch: the real one, but every call is recorded first. */
const recordingFetch: typeof fetch = (input, init) => {
  fetched.push(String(input instanceof Request ? input.url : input));
  return fetch(input, init);
};

function startConsumer(consumerOptions: ConsumerFetchOptions): S2SPServer {
  const server = createS2SPServer({
    name: 'consumer',
    version: '1.0.0',
    logger: silentLogger,
    consumer: { timeoutMs: 3000, ...consumerOptions },
  });
  server.consumerTool('summarise', { description: 'Counts rows.' }, (rows) => {
    handlerRuns++;
    return `${rows.length} rows`;
  });
  return server;
}

beforeAll(async () => {
  allowed = await startHttpServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"code":"not_found","message":"gone","status":404}}');
  });
  forbidden = await startHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"body":[{"_row_id":0,"secret":"from the forbidden canary"}]}');
  });
  consumer = startConsumer({ allowedOrigins: [allowed.url], fetch: recordingFetch });
  const listening = await consumer.listen();
  agent = await connectMcpClient(listening.mcpUrl);
});
afterAll(async () => {
  await agent?.close();
  await consumer?.close();
  await allowed?.close();
  await forbidden?.close();
});

/** The crafted resource_urls: [what it tries, URL]. */
function corpus(): [string, string][] {
  const A = allowed.port;
  const B = forbidden.port;
  const t = token;
  return [
    ['cloud metadata, its own path', 'http://169.254.169.254/latest/meta-data/iam/'],
    ['cloud metadata, S2SP path', `http://169.254.169.254/s2sp/data/${t}`],
    ['IPv6 loopback literal', `http://[::1]:${A}/s2sp/data/${t}`],
    ['IPv4-mapped IPv6 loopback', `http://[::ffff:127.0.0.1]:${A}/s2sp/data/${t}`],
    ['IPv4-mapped IPv6, canonical hex', `http://[::ffff:7f00:1]:${A}/s2sp/data/${t}`],
    ['hex IPv4 0x7f.1', `http://0x7f.1:${A}/s2sp/data/${t}`],
    ['hex IPv4 0x7f000001', `http://0x7f000001:${A}/s2sp/data/${t}`],
    ['decimal IPv4 2130706433', `http://2130706433:${A}/s2sp/data/${t}`],
    ['octal IPv4 0177.0.0.1', `http://0177.0.0.1:${A}/s2sp/data/${t}`],
    ['short IPv4 127.1', `http://127.1:${A}/s2sp/data/${t}`],
    ['zero-padded IPv4', `http://127.000.000.001:${A}/s2sp/data/${t}`],
    ['0.0.0.0', `http://0.0.0.0:${A}/s2sp/data/${t}`],
    ['userinfo a@', `http://a@127.0.0.1:${A}/s2sp/data/${t}`],
    ['userinfo allowed@forbidden', `http://127.0.0.1:${A}@127.0.0.1:${B}/s2sp/data/${t}`],
    ['#@ confusion', `http://127.0.0.1:${B}#@127.0.0.1:${A}/s2sp/data/${t}`],
    ['fragment', `http://127.0.0.1:${A}/s2sp/data/${t}#@evil`],
    ['backslash @ confusion', `http://127.0.0.1:${B}\\@127.0.0.1:${A}/s2sp/data/${t}`],
    ['backslash path', `http://127.0.0.1:${A}\\s2sp\\data\\${t}`],
    ['scheme-relative backslashes', `http:/\\127.0.0.1:${A}/s2sp/data/${t}`],
    ['no slashes after scheme', `http:127.0.0.1:${A}/s2sp/data/${t}`],
    ['trailing-dot host name', `http://localhost.:${A}/s2sp/data/${t}`],
    ['trailing-dot IPv4', `http://127.0.0.1.:${A}/s2sp/data/${t}`],
    ['%2e%2e traversal', `http://127.0.0.1:${A}/s2sp/data/%2e%2e/%2e%2e/admin/${t}`],
    ['%2e%2e before the data path', `http://127.0.0.1:${A}/s2sp/%2e%2e/s2sp/data/${t}`],
    ['../ traversal', `http://127.0.0.1:${A}/s2sp/data/../../s2sp/data/${t}`],
    ['trailing /..', `http://127.0.0.1:${A}/s2sp/data/${t}/..`],
    ['percent-encoded path letters', `http://127.0.0.1:${A}/%73%32%73%70/data/${t}`],
    ['NUL byte', `http://127.0.0.1:${A}/s2sp/data/${t}%00`],
    ['tab inside the path', `http://127.0.0.1:${A}/s2sp/da\tta/${t}`],
    ['file:', 'file:///etc/passwd'],
    ['gopher:', `gopher://127.0.0.1:${A}/_POST%20/s2sp/data/${t}`],
    ['data:', 'data:application/json,{"body":[{"_row_id":0}]}'],
    ['javascript:', `javascript:fetch('//127.0.0.1:${A}')`],
    ['ftp:', `ftp://127.0.0.1:${A}/s2sp/data/${t}`],
    ['ws:', `ws://127.0.0.1:${A}/s2sp/data/${t}`],
    ['https: on the allowed host', `https://127.0.0.1:${A}/s2sp/data/${t}`],
    ['upper-case scheme', `HTTP://127.0.0.1:${A}/s2sp/data/${t}`],
    ['scheme-relative', `//127.0.0.1:${A}/s2sp/data/${t}`],
    ['IDN (Unicode)', `http://пример.рф/s2sp/data/${t}`],
    ['IDN (punycode)', `http://xn--e1afmkfd.xn--p1ai/s2sp/data/${t}`],
    ['full-width host', `http://ｌｏｃａｌｈｏｓｔ:${A}/s2sp/data/${t}`],
    ['rebinding-style name', `http://127.0.0.1.nip.io:${A}/s2sp/data/${t}`],
    ['wrong port (forbidden canary)', `http://127.0.0.1:${B}/s2sp/data/${t}`],
    ['leading-zero port', `http://127.0.0.1:0${A}/s2sp/data/${t}`],
    ['non-S2SP path', `http://127.0.0.1:${A}/admin`],
    ['query string', `http://127.0.0.1:${A}/s2sp/data/${t}?next=/admin`],
    ['extra path segment', `http://127.0.0.1:${A}/s2sp/data/${t}/extra`],
    ['short token', `http://127.0.0.1:${A}/s2sp/data/${t.slice(1)}`],
    ['upper-case data path', `http://127.0.0.1:${A}/S2SP/DATA/${t}`],
    ['ddi:// handle', 'ddi://abc'],
  ];
}

describe('figure 11: SSRF corpus through a real consumer tool', () => {
  it('refuses every crafted resource_url before any socket opens', async () => {
    const cases = corpus();
    const accepted: string[] = [];
    const leaked: string[] = [];
    for (const [what, url] of cases) {
      const result = await agent.call('summarise', {
        abstract_data: '[{"_row_id":0}]',
        resource_url: url,
      });
      if (result.isError !== true) accepted.push(what);
      const text = textOf(result);
      // Refusals never echo the URL (it may carry a live token) and say what to do.
      if (text.includes(token) || text.includes(url)) leaked.push(what);
      expect(text, what).toMatch(/resource_url/);
    }
    const connections = allowed.connections() + forbidden.connections();
    recordFigure({
      id: '11.1',
      title: `Crafted resource_urls refused by the consumer tool (metadata IP, [::1], hex/octal/decimal IPs, userinfo, #@, backslashes, trailing dots, %2e%2e, file:/gopher:/data:, IDN, wrong port, non-S2SP paths…)`,
      value: `${cases.length - accepted.length}/${cases.length}`,
      target: `${cases.length}/${cases.length} (≥ 25 cases)`,
      met: accepted.length === 0 && cases.length >= 25,
    });
    recordFigure({
      id: '11.2',
      title:
        'Fetches started / connections seen by the two loopback canaries (allowed and forbidden origin) during the corpus',
      value: `${fetched.length} / ${connections}`,
      target: '0 / 0',
      met: fetched.length === 0 && connections === 0,
    });
    recordFigure({
      id: '11.3',
      title: 'Refusal messages that repeat the URL or its token',
      value: leaked.length,
      target: '0',
      met: leaked.length === 0,
    });
    expect(accepted).toEqual([]);
    expect(leaked).toEqual([]);
    expect(fetched).toEqual([]);
    expect(connections).toBe(0);
    expect(handlerRuns).toBe(0);

    // Positive control: the same harness does see a fetch that is allowed.
    const control = await agent.call('summarise', {
      abstract_data: '[{"_row_id":0}]',
      resource_url: `${allowed.url}/s2sp/data/${token}`,
    });
    expect(control.isError).toBe(true);
    expect(textOf(control)).toMatch(/expired or already used/);
    expect(fetched).toHaveLength(1);
    expect(allowed.connections()).toBe(1);
    expect(forbidden.connections()).toBe(0);
    recordFigure({
      id: '11.4',
      title: 'Positive control: a well-formed URL on the allowed canary — fetches / connections',
      value: `${fetched.length} / ${allowed.connections()}`,
      target: '1 / 1',
      met: fetched.length === 1 && allowed.connections() === 1,
    });
  });
});

describe('figure 12: redirects and public destinations only', () => {
  it('a 301/302/303/307/308 to loopback is never followed: zero follow-up requests', async () => {
    let status = 302;
    const redirecting = await startHttpServer((_req, res) => {
      res.writeHead(status, { location: `${forbidden.url}/s2sp/data/${token}` });
      res.end();
    });
    // Two consumers: one with an allow-list (the redirecting server's origin), one without (which
    // must opt out of the default, public destinations only, to reach a loopback server at all).
    const withList = startConsumer({ allowedOrigins: [redirecting.url] });
    const withoutList = startConsumer({ destinations: 'any' });
    try {
      const lists = await withList.listen();
      const open = await withoutList.listen();
      await using listAgent = await connectMcpClient(lists.mcpUrl);
      await using openAgent = await connectMcpClient(open.mcpUrl);
      const before = forbidden.connections();
      let refused = 0;
      const statuses = [301, 302, 303, 307, 308];
      for (const redirect of statuses) {
        status = redirect;
        for (const client of [listAgent, openAgent]) {
          const result = await client.call('summarise', {
            abstract_data: '[{"_row_id":0}]',
            resource_url: `${redirecting.url}/s2sp/data/${token}`,
          });
          if (result.isError === true && /redirect/.test(textOf(result))) refused++;
        }
      }
      const followUps = forbidden.connections() - before;
      expect(redirecting.requests).toHaveLength(statuses.length * 2); // every call got its redirect
      // Control: a client that does follow redirects reaches the canary, so it would have counted.
      await fetch(`${redirecting.url}/s2sp/data/${token}`, { method: 'POST', body: '{}' }).then(
        (response) => response.text(),
      );
      const controlFollowUps = forbidden.connections() - before - followUps;
      expect(controlFollowUps).toBe(1);
      recordFigure({
        id: '12.1',
        title: `Redirects (${statuses.join(', ')}) to a loopback canary, with and without an allow-list: refused with advice / follow-up connections (a redirect-following fetch as control: ${controlFollowUps})`,
        value: `${refused}/${statuses.length * 2} / ${followUps}`,
        target: `${statuses.length * 2}/${statuses.length * 2} / 0`,
        met: refused === statuses.length * 2 && followUps === 0,
      });
      expect(refused).toBe(statuses.length * 2);
      expect(followUps).toBe(0);
    } finally {
      await withList.close();
      await withoutList.close();
      await redirecting.close();
    }
  });

  it('the default consumer (public destinations only): refuses private, loopback, link-local, CGNAT, multicast and IPv4-mapped destinations', async () => {
    const B = forbidden.port;
    const t = token;
    const destinations: [string, string][] = [
      ['loopback 127.0.0.1 (forbidden canary)', `http://127.0.0.1:${B}/s2sp/data/${t}`],
      ['loopback 127.0.0.2', `http://127.0.0.2:${B}/s2sp/data/${t}`],
      ['IPv6 loopback', `http://[::1]:${B}/s2sp/data/${t}`],
      ['localhost (resolves to loopback)', `http://localhost:${B}/s2sp/data/${t}`],
      ['unspecified 0.0.0.0', `http://0.0.0.0:${B}/s2sp/data/${t}`],
      ['unspecified [::]', `http://[::]:${B}/s2sp/data/${t}`],
      ['private 10/8', `http://10.0.0.1:8080/s2sp/data/${t}`],
      ['private 172.16/12', `http://172.16.5.4:8080/s2sp/data/${t}`],
      ['private 192.168/16', `http://192.168.1.1:8080/s2sp/data/${t}`],
      ['link-local metadata', `http://169.254.169.254/s2sp/data/${t}`],
      ['IPv6 link-local', `http://[fe80::1]:8080/s2sp/data/${t}`],
      ['IPv6 unique local', `http://[fd00::1]:8080/s2sp/data/${t}`],
      ['carrier-grade NAT', `http://100.64.0.1:8080/s2sp/data/${t}`],
      ['multicast', `http://224.0.0.1:8080/s2sp/data/${t}`],
      ['broadcast', `http://255.255.255.255:8080/s2sp/data/${t}`],
      ['IPv4-mapped loopback', `http://[::ffff:7f00:1]:${B}/s2sp/data/${t}`],
      ['IPv4-mapped metadata', `http://[::ffff:a9fe:a9fe]:8080/s2sp/data/${t}`],
      ['IPv4-mapped private', `http://[::ffff:a00:1]:8080/s2sp/data/${t}`],
      ['NAT64 metadata', `http://[64:ff9b::a9fe:a9fe]:8080/s2sp/data/${t}`],
      ['6to4 loopback', `http://[2002:7f00:1::]:8080/s2sp/data/${t}`],
    ];
    const publicOnly = startConsumer({});
    try {
      const listening = await publicOnly.listen();
      await using client = await connectMcpClient(listening.mcpUrl);
      const before = forbidden.connections();
      const accepted: string[] = [];
      for (const [what, url] of destinations) {
        const result = await client.call('summarise', {
          abstract_data: '[{"_row_id":0}]',
          resource_url: url,
        });
        if (result.isError !== true || !/non-public address/.test(textOf(result)))
          accepted.push(`${what}: ${textOf(result)}`);
      }
      const connections = forbidden.connections() - before;
      recordFigure({
        id: '12.2',
        title: `default consumer (public destinations only), no allow-list: non-public destinations refused (${destinations.map(([what]) => what).join('; ')})`,
        value: `${destinations.length - accepted.length}/${destinations.length}`,
        target: `${destinations.length}/${destinations.length}`,
        met: accepted.length === 0,
      });
      recordFigure({
        id: '12.3',
        title:
          'default consumer (public destinations only): connections reaching the loopback canary',
        value: connections,
        target: '0',
        met: connections === 0,
      });
      expect(accepted).toEqual([]);
      expect(connections).toBe(0);
    } finally {
      await publicOnly.close();
    }
  });
});
