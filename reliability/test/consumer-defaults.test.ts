// Figures 30 and 31: the consumer is safe by default, and bounded.
// Every attack of the issue is replayed through a real consumer tool with DEFAULT settings (no
// allow-list, no options), called by the official MCP SDK client over Streamable HTTP:
// - loopback, private, link-local and local-only destinations are refused before any socket
//   opens (loopback canaries count connections);
// - an attacker-chosen path prefix (`/admin/users/delete%3Fall=1/s2sp/data/<token>`) is refused
//   even on an allow-listed origin;
// - closed ports, open non-HTTP ports, ports that reset and ports that never answer all give one
//   error (no port scanner);
// - compressed answers are refused unread (Accept-Encoding: identity);
// - a JSON-RPC batch over the cap runs nothing; within it, fetches run at most 4 at a time;
// - isPublicAddress refuses the special-purpose ranges the issue found missing.
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { generateToken } from '@s2sp/core';
import { isPublicAddress } from '@s2sp/core/node';
import { createS2SPServer, type S2SPServer, silentLogger } from '@s2sp/server';
import { connectMcpClient, startHttpServer, type TestServer, textOf } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';

const token = generateToken();
let canary: TestServer; // a loopback "internal service": counts connections, answers 200
let consumer: S2SPServer; // default settings
let mcpUrl: string;
let handlerRuns = 0;

function startConsumer(options: Parameters<typeof createS2SPServer>[0]['consumer'] = {}) {
  const server = createS2SPServer({
    name: 'consumer',
    version: '1.0.0',
    logger: silentLogger,
    ...(Object.keys(options).length > 0 && { consumer: options }),
  });
  server.consumerTool('summarise', { description: 'Counts rows.' }, (rows) => {
    handlerRuns++;
    return `${rows.length} rows`;
  });
  return server;
}

beforeAll(async () => {
  canary = await startHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"body":[{"_row_id":0,"secret":"internal"}]}');
  });
  consumer = startConsumer();
  mcpUrl = (await consumer.listen()).mcpUrl;
});
afterAll(async () => {
  await consumer?.close();
  await canary?.close();
});

describe('figure 30: a consumer with default settings', () => {
  it('refuses loopback, private, link-local and local-only destinations before any socket opens', async () => {
    await using agent = await connectMcpClient(mcpUrl);
    const P = canary.port;
    const t = token;
    const destinations: [string, string][] = [
      ['loopback canary 127.0.0.1', `http://127.0.0.1:${P}/s2sp/data/${t}`],
      [
        'loopback canary, the issue’s path prefix',
        `http://127.0.0.1:${P}/admin/users/delete%3Fall=1/s2sp/data/${t}`,
      ],
      ['loopback 127.0.0.2', `http://127.0.0.2:${P}/s2sp/data/${t}`],
      ['IPv6 loopback', `http://[::1]:${P}/s2sp/data/${t}`],
      ['localhost', `http://localhost:${P}/s2sp/data/${t}`],
      ['single-label name (redis)', `http://redis:6379/s2sp/data/${t}`],
      ['.internal name', `http://metadata.google.internal/s2sp/data/${t}`],
      ['.local name', `http://printer.local/s2sp/data/${t}`],
      ['unspecified 0.0.0.0', `http://0.0.0.0:${P}/s2sp/data/${t}`],
      ['private 10/8', `http://10.0.0.1/s2sp/data/${t}`],
      ['private 172.16/12', `http://172.16.0.1/s2sp/data/${t}`],
      ['private 192.168/16', `http://192.168.0.1/s2sp/data/${t}`],
      ['link-local metadata', `http://169.254.169.254/s2sp/data/${t}`],
      ['carrier-grade NAT', `http://100.64.0.1/s2sp/data/${t}`],
      ['IPv6 unique local', `http://[fd00::1]/s2sp/data/${t}`],
      ['IPv6 link-local', `http://[fe80::1]/s2sp/data/${t}`],
      ['IPv4-mapped public (::ffff:0:0/96)', `http://[::ffff:808:808]/s2sp/data/${t}`],
      ['local-use NAT64 (64:ff9b:1::/48)', `http://[64:ff9b:1::808:808]/s2sp/data/${t}`],
      ['Teredo (2001::/32)', `http://[2001::1]/s2sp/data/${t}`],
    ];
    const accepted: string[] = [];
    for (const [what, url] of destinations) {
      const result = await agent.call('summarise', {
        abstract_data: '[{"_row_id":0}]',
        resource_url: url,
      });
      // Refused as non-public, or (the prefixed path) for its path, before the address matters.
      const text = textOf(result);
      if (result.isError !== true || !/non-public address|path must be exactly/.test(text))
        accepted.push(what);
    }
    const connections = canary.connections();
    recordFigure({
      id: '30.1',
      title: `Default consumer (no allow-list, no options): non-public destinations refused over MCP (${destinations.map(([w]) => w).join('; ')})`,
      value: `${destinations.length - accepted.length}/${destinations.length}`,
      target: `${destinations.length}/${destinations.length}`,
      met: accepted.length === 0,
    });
    recordFigure({
      id: '30.2',
      title: 'Connections reaching the loopback canary / handler runs during those calls',
      value: `${connections} / ${handlerRuns}`,
      target: '0 / 0',
      met: connections === 0 && handlerRuns === 0,
    });
    expect(accepted).toEqual([]);
    expect(connections).toBe(0);
    expect(handlerRuns).toBe(0);
  });

  it('refuses an attacker-chosen path prefix even on an allow-listed origin; the exact path works', async () => {
    const listed = startConsumer({ allowedOrigins: [canary.url] });
    try {
      await using agent = await connectMcpClient((await listed.listen()).mcpUrl);
      const before = canary.requests.length;
      const prefixes = [
        '/admin/users/delete%3Fall=1',
        '/admin',
        '/api/v1/internal',
        '/%2e%2e',
        '/s2sp/data',
      ];
      let refused = 0;
      for (const prefix of prefixes) {
        const result = await agent.call('summarise', {
          abstract_data: '[{"_row_id":0}]',
          resource_url: `${canary.url}${prefix}/s2sp/data/${token}`,
        });
        if (result.isError === true && /resource_url/.test(textOf(result))) refused++;
      }
      const reached = canary.requests.length - before;
      // Positive control: the exact path on the listed (loopback) origin is fetched.
      const control = await agent.call('summarise', {
        abstract_data: '[{"_row_id":0}]',
        resource_url: `${canary.url}/s2sp/data/${token}`,
      });
      recordFigure({
        id: '30.3',
        title: `Allow-listed loopback origin: path prefixes before /s2sp/data/{token} refused (${prefixes.join(', ')}) / requests reaching it; the exact path as control: ${textOf(control)}`,
        value: `${refused}/${prefixes.length} / ${reached}`,
        target: `${prefixes.length}/${prefixes.length} / 0`,
        met: refused === prefixes.length && reached === 0 && textOf(control) === '1 rows',
      });
      expect(refused).toBe(prefixes.length);
      expect(reached).toBe(0);
      expect(textOf(control)).toBe('1 rows');
    } finally {
      await listed.close();
    }
  });

  it('gives one error for a closed port, an SSH banner, a reset and a silent port (no port oracle)', async () => {
    const tcp: Server[] = [];
    const listen = async (onConnection: (socket: Socket) => void) => {
      const s = createTcpServer(onConnection);
      tcp.push(s);
      await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
      return (s.address() as { port: number }).port;
    };
    const closedServer = await startHttpServer((_req, res) => res.end());
    const closedPort = closedServer.port;
    await closedServer.close();
    const ports: [string, number][] = [
      ['closed port', closedPort],
      ['SSH banner', await listen((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'))],
      [
        'Redis-like reply',
        await listen((socket) => socket.on('data', () => socket.end('-ERR unknown command\r\n'))),
      ],
      ['connection reset', await listen((socket) => socket.resetAndDestroy())],
      ['silent (never answers)', await listen(() => {})],
    ];
    // The scan an attacker would run: an allow-list naming every port (the worst case for the
    // consumer, which then connects to each).
    const scanner = startConsumer({
      allowedOrigins: ports.map(([, port]) => `http://127.0.0.1:${port}`),
      timeoutMs: 500,
    });
    try {
      await using agent = await connectMcpClient((await scanner.listen()).mcpUrl);
      const answers = new Map<string, string>();
      for (const [what, port] of ports) {
        const result = await agent.call('summarise', {
          abstract_data: '[{"_row_id":0}]',
          resource_url: `http://127.0.0.1:${port}/s2sp/data/${token}`,
        });
        answers.set(what, `${result.isError}:${textOf(result).replaceAll(String(port), 'PORT')}`);
      }
      const distinct = new Set(answers.values()).size;
      recordFigure({
        id: '30.4',
        title: `Distinct tool answers (error text with the port masked) for ${ports.map(([w]) => w).join(', ')}`,
        value: distinct,
        target: '1',
        met: distinct === 1,
      });
      expect(distinct).toBe(1);
    } finally {
      await scanner.close();
      for (const s of tcp) s.close();
    }
  });

  it('asks for identity encoding and refuses a compressed answer without inflating it', async () => {
    // 64 MiB of JSON whitespace gzips to ~64 KiB: inflated, it would be 1000× what crossed the wire.
    const bomb = gzipSync(
      Buffer.concat([
        Buffer.from('{"body":[{"_row_id":0}]'),
        Buffer.alloc(64 * 1024 * 1024, 0x20),
        Buffer.from('}'),
      ]),
    );
    const seen: (string | undefined)[] = [];
    const gzipServer = await startHttpServer((req, res) => {
      seen.push(req.headers['accept-encoding']);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const listed = startConsumer({ allowedOrigins: [gzipServer.url] });
    try {
      await using agent = await connectMcpClient((await listed.listen()).mcpUrl);
      const rssBefore = process.memoryUsage().rss;
      let refused = 0;
      const calls = 10;
      for (let i = 0; i < calls; i++) {
        const result = await agent.call('summarise', {
          abstract_data: '[{"_row_id":0}]',
          resource_url: `${gzipServer.url}/s2sp/data/${token}`,
        });
        if (result.isError === true && /compressed its answer/.test(textOf(result))) refused++;
      }
      const growthMiB = Math.max(0, (process.memoryUsage().rss - rssBefore) / 2 ** 20);
      const identity = seen.filter((v) => v === 'identity').length;
      recordFigure({
        id: '30.5',
        title: `gzip bombs (${(bomb.length / 1024).toFixed(0)} KiB on the wire, 64 MiB inflated) to an allow-listed consumer, ${calls} calls: refused as compressed / requests that said Accept-Encoding: identity / RSS growth of the test process (consumer in it)`,
        value: `${refused}/${calls} / ${identity}/${calls} / ${growthMiB.toFixed(0)} MiB`,
        target: `${calls}/${calls} / ${calls}/${calls} / < 64 MiB`,
        met: refused === calls && identity === calls && growthMiB < 64,
      });
      expect(refused).toBe(calls);
      expect(identity).toBe(calls);
    } finally {
      await listed.close();
      await gzipServer.close();
    }
  });
});

describe('figure 31: consumer work per request is bounded', () => {
  it('refuses a JSON-RPC batch over the cap before running it, and runs at most 4 fetches at once', async () => {
    let active = 0;
    let peak = 0;
    const slow = await startHttpServer(async (_req, res) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, 100));
      active--;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"body":[{"_row_id":0,"x":1}]}');
    });
    const listed = startConsumer({ allowedOrigins: [slow.url] });
    try {
      const url = (await listed.listen()).mcpUrl;
      const batch = (n: number) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify(
            Array.from({ length: n }, (_, id) => ({
              jsonrpc: '2.0',
              id,
              method: 'tools/call',
              params: {
                name: 'summarise',
                arguments: {
                  abstract_data: '[{"_row_id":0}]',
                  resource_url: `${slow.url}/s2sp/data/${generateToken()}`,
                },
              },
            })),
          ),
        });
      const runsBefore = handlerRuns;
      const big = await batch(40);
      const bigBody = (await big.json()) as { error?: { code: number } };
      const requestsAfterBig = slow.requests.length;
      const ok = await batch(10);
      const okBody = (await ok.json()) as { result?: { isError?: boolean } }[];
      const succeeded = okBody.filter((r) => r.result && r.result.isError !== true).length;
      recordFigure({
        id: '31.1',
        title:
          'One JSON-RPC batch of 40 consumer calls: HTTP status / JSON-RPC code / fetches started',
        value: `${big.status} / ${bigBody.error?.code} / ${requestsAfterBig}`,
        target: '400 / -32600 / 0',
        met: big.status === 400 && bigBody.error?.code === -32600 && requestsAfterBig === 0,
      });
      recordFigure({
        id: '31.2',
        title:
          'A batch of 10 (the cap) consumer calls against a 100 ms data plane: calls that succeeded / most fetches in flight at once',
        value: `${succeeded}/10 / ${peak}`,
        target: '10/10 / ≤ 4',
        met: succeeded === 10 && peak <= 4,
      });
      expect(big.status).toBe(400);
      expect(requestsAfterBig).toBe(0);
      expect(handlerRuns - runsBefore).toBe(10);
      expect(peak).toBeLessThanOrEqual(4);
    } finally {
      await listed.close();
      await slow.close();
    }
  });

  it('isPublicAddress: the special-purpose ranges of the issue and the IANA registries are not public', () => {
    const notPublic = [
      '::ffff:8.8.8.8',
      '::ffff:808:808',
      '::ffff:0:8.8.8.8',
      '64:ff9b:1::808:808',
      '2001::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001:2::1',
      '2001:10::1',
      '100::1',
      '100:0:0:1::1',
      '3fff::1',
      '5f00::1',
      '64:ff9b::a00:1',
      '2002:a00:1::',
    ];
    const controls = ['8.8.8.8', '2606:4700:4700::1111', '64:ff9b::808:808', '2002:808:808::'];
    const wronglyPublic = notPublic.filter((a) => isPublicAddress(a));
    const controlsPublic = controls.filter((a) => isPublicAddress(a)).length;
    recordFigure({
      id: '31.3',
      title: `isPublicAddress: special-purpose addresses classified public (${notPublic.join(', ')}) / public controls classified public (${controls.join(', ')})`,
      value: `${wronglyPublic.length} / ${controlsPublic}/${controls.length}`,
      target: `0 / ${controls.length}/${controls.length}`,
      met: wronglyPublic.length === 0 && controlsPublic === controls.length,
    });
    expect(wronglyPublic).toEqual([]);
    expect(controlsPublic).toBe(controls.length);
  });
});
