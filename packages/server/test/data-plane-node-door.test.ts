// The data plane's two front doors answer byte for byte alike: the Hono route under
// @hono/node-server (`serve`) and the Node front door (`toNodeHandler`, `listen()`), for good
// requests and bad ones; the Node door is used only while nothing else could run for the path.
import { subscribe } from 'node:diagnostics_channel';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { generateToken, tokenStorageKey } from '@s2sp/core';
import { type BodyStore, createMemoryStore } from '@s2sp/core/store';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataPlaneApp, createS2SPEdge } from '../src/http/index.js';
import { createS2SPServer, silentLogger } from '../src/index.js';
import { toNodeHandler } from '../src/node.js';
import { prepareTable, serializeTable } from '../src/resource/table.js';

const store = createMemoryStore();
const MAX_REQUEST_BYTES = 4096;
const app = createDataPlaneApp({ store, maxRequestBytes: MAX_REQUEST_BYTES, bodyTimeoutMs: 300 });
const small = serializeTable(
  prepareTable(Array.from({ length: 40 }, (_, i) => ({ event: `e${i}`, text: 'ß😀 "q"' }))),
);
// Above the 1 MiB that the Hono route sends as one buffer: a web stream there.
const large = serializeTable(
  prepareTable(Array.from({ length: 3000 }, (_, i) => ({ event: `e${i}`, text: 'x'.repeat(400) }))),
);

let hono: Server;
let door: Server;
/** Socket writes of each answer of every server in this process, in order. */
const writes: number[] = [];

function listening(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (server.listening) resolve();
    else server.once('listening', () => resolve());
  });
}

// Every server's answers, the listeners' included: how many writes reach the socket.
subscribe('http.server.request.start', (message) => {
  const { response, socket: raw } = message as { response: ServerResponse; socket: unknown };
  const socket = raw as Record<'_write' | '_writev', (...a: unknown[]) => void>;
  const index = writes.push(0) - 1;
  for (const name of ['_write', '_writev'] as const) {
    const original = socket[name];
    socket[name] = (...args: unknown[]) => {
      writes[index] = (writes[index] ?? 0) + 1;
      return original.apply(socket, args);
    };
    response.once('close', () => {
      socket[name] = original;
    });
  }
});

beforeAll(async () => {
  hono = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  door = createServer(toNodeHandler(app)).listen(0, '127.0.0.1');
  await Promise.all([listening(hono), listening(door)]);
});

afterAll(async () => {
  await Promise.all([hono, door].map((s) => new Promise((resolve) => s.close(resolve))));
  await store.close();
});

async function cached(table = small): Promise<string> {
  const token = generateToken();
  await store.put(await tokenStorageKey(token), table, { ttlMs: 60_000 });
  return token;
}

interface Exchange {
  readonly method?: string;
  readonly path: string;
  readonly headers?: readonly string[];
  /** Sent whole, with its Content-Length (unless `declared` says otherwise). */
  readonly body?: string;
  /** The Content-Length to declare instead of the body's. */
  readonly declared?: number;
  /** The body is chunked already: no Content-Length. */
  readonly chunked?: boolean;
}

/** The raw bytes of one answer, its Date line (the one part that may differ) cut. */
function exchange(server: Server, request: Exchange): Promise<Buffer> {
  const { port } = server.address() as AddressInfo;
  const body = request.body ?? '';
  const head = [
    `${request.method ?? 'POST'} ${request.path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    'connection: close',
    ...(request.method === 'GET' || request.chunked
      ? []
      : [`content-length: ${request.declared ?? Buffer.byteLength(body)}`]),
    ...(request.headers ?? []),
  ];
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const parts: Buffer[] = [];
    socket.on('data', (part: Buffer) => parts.push(part));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve(
        Buffer.from(
          Buffer.concat(parts)
            .toString('latin1')
            .replace(/\r\ndate: [^\r]*/i, ''),
          'latin1',
        ),
      ),
    );
    socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
}

const JSON_TYPE = 'content-type: application/json';
const KEY = 'idempotency-key: 5qW3n1c0b8mZ2yX4vU6tS9rQpOaLkJhG';

/** Each case: the requests, in order, made with a token of its own on each server. */
const cases: [string, (token: string) => Exchange[]][] = [
  [
    'the whole table as JSON',
    (t) => [{ path: `/s2sp/data/${t}`, headers: [JSON_TYPE], body: '{}' }],
  ],
  [
    'the whole table as NDJSON',
    (t) => [
      {
        path: `/s2sp/data/${t}`,
        headers: [JSON_TYPE, 'accept: application/x-ndjson'],
        body: '{}',
      },
    ],
  ],
  ['an empty body', (t) => [{ path: `/s2sp/data/${t}` }]],
  [
    'row_ids (and a query string)',
    (t) => [{ path: `/s2sp/data/${t}?x=1`, headers: [JSON_TYPE], body: '{"row_ids":[39,0,5,99]}' }],
  ],
  [
    'row_ids and columns',
    (t) => [
      {
        path: `/s2sp/data/${t}`,
        headers: [JSON_TYPE],
        body: '{"row_ids":[3,1],"columns":["text"]}',
      },
    ],
  ],
  [
    '404 for a token used up',
    (t) => [
      { path: `/s2sp/data/${t}`, headers: [JSON_TYPE], body: '{}' },
      { path: `/s2sp/data/${t}`, headers: [JSON_TYPE], body: '{}' },
    ],
  ],
  ['404 for a token never issued', () => [{ path: `/s2sp/data/${generateToken()}`, body: '{}' }]],
  ['404 for no token shape', () => [{ path: '/s2sp/data/abc', headers: [JSON_TYPE], body: '{}' }]],
  [
    '400 for bad JSON, and the token kept',
    (t) => [
      { path: `/s2sp/data/${t}`, headers: [JSON_TYPE], body: '{"row_ids":' },
      { path: `/s2sp/data/${t}`, headers: [JSON_TYPE], body: '{"row_ids":[1]}' },
    ],
  ],
  [
    '400 for a bad Idempotency-Key',
    (t) => [
      { path: `/s2sp/data/${t}`, headers: [JSON_TYPE, 'idempotency-key: short'], body: '{}' },
    ],
  ],
  [
    '413 for a body declared too large',
    (t) => [
      {
        path: `/s2sp/data/${t}`,
        headers: [JSON_TYPE],
        body: `{"columns":["${'a'.repeat(MAX_REQUEST_BYTES)}"]}`,
      },
    ],
  ],
  [
    '415 for another content type',
    (t) => [{ path: `/s2sp/data/${t}`, headers: ['content-type: text/plain'], body: '{}' }],
  ],
  [
    '415 for a repeated content type',
    (t) => [
      { path: `/s2sp/data/${t}`, headers: [JSON_TYPE, 'content-type: text/plain'], body: '{}' },
    ],
  ],
  [
    '403 for a browser on another site',
    (t) => [
      {
        path: `/s2sp/data/${t}`,
        headers: [JSON_TYPE, 'origin: https://evil.example', 'sec-fetch-site: cross-site'],
        body: '{}',
      },
    ],
  ],
  [
    'a retry with the same Idempotency-Key',
    (t) => [
      { path: `/s2sp/data/${t}`, headers: [JSON_TYPE, KEY], body: '{"row_ids":[2]}' },
      { path: `/s2sp/data/${t}`, headers: [JSON_TYPE, KEY], body: '{"row_ids":[2]}' },
    ],
  ],
  ['405 for GET on a token', (t) => [{ method: 'GET', path: `/s2sp/data/${t}` }]],
  ['405 for PUT on a token', (t) => [{ method: 'PUT', path: `/s2sp/data/${t}`, body: '{}' }]],
  ['the health check', () => [{ method: 'GET', path: '/s2sp/health' }]],
  ['404 elsewhere', () => [{ method: 'GET', path: '/nothing' }]],
];

describe('the Node front door and the Hono route', () => {
  it.each(cases)('answer alike: %s', async (_, requests) => {
    const tokens = [await cached(), await cached()];
    const answers = await Promise.all(
      [hono, door].map(async (server, i) => {
        const out: string[] = [];
        for (const request of requests(tokens[i] as string))
          out.push((await exchange(server, request)).toString('latin1'));
        return out;
      }),
    );
    expect(answers[0]?.[0]).toMatch(/^HTTP\/1\.1 \d{3} /);
    expect(answers[1]).toEqual(answers[0]);
  });

  it('answer alike for a body over 1 MiB, which the door sends in one write', async () => {
    const [a, b] = [await cached(large), await cached(large)];
    const viaHono = await exchange(hono, { path: `/s2sp/data/${a}`, headers: [JSON_TYPE] });
    writes.length = 0;
    const viaDoor = await exchange(door, { path: `/s2sp/data/${b}`, headers: [JSON_TYPE] });
    expect(viaHono.toString('latin1')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(viaHono.byteLength).toBeGreaterThan(1024 * 1024);
    expect(viaDoor.equals(viaHono)).toBe(true);
    expect(writes).toEqual([1]);
  });

  it('answer alike to a body that does not arrive in time (408, connection closed)', async () => {
    const [a, b] = [await cached(), await cached()];
    const slow = (t: string): Exchange => ({
      path: `/s2sp/data/${t}`,
      headers: [JSON_TYPE],
      body: '{"row',
      declared: 40,
    });
    const [viaHono, viaDoor] = await Promise.all([
      exchange(hono, slow(a)),
      exchange(door, slow(b)),
    ]);
    expect(viaHono.toString('latin1')).toMatch(/^HTTP\/1\.1 408 /);
    expect(viaDoor.toString('latin1')).toBe(viaHono.toString('latin1'));
  });

  it('answer alike to a chunked body that grows past the limit (413)', async () => {
    const [a, b] = [await cached(), await cached()];
    const chunk = 'a'.repeat(1000);
    const chunked = (t: string): Exchange => ({
      path: `/s2sp/data/${t}`,
      headers: [JSON_TYPE, 'transfer-encoding: chunked'],
      body: `${`3e8\r\n${chunk}\r\n`.repeat(6)}0\r\n\r\n`,
      chunked: true,
    });
    const request = (server: Server, t: string) =>
      exchange(server, chunked(t)).then((b) => b.toString('latin1'));
    const viaHono = await request(hono, a);
    expect(viaHono).toMatch(/^HTTP\/1\.1 413 /);
    expect(await request(door, b)).toBe(viaHono);
  });

  it('survives a client that goes away in the middle of its body, and serves the next', async () => {
    const { port } = door.address() as AddressInfo;
    const accepted = new Promise<Socket>((resolve) => door.once('connection', resolve));
    const requestReceived = new Promise((resolve) => door.once('request', resolve));
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const serverSide = await accepted;
    socket.write(
      `POST /s2sp/data/${await cached()} HTTP/1.1\r\nhost: x\r\n${JSON_TYPE}\r\ncontent-length: 100\r\n\r\n{"ro`,
    );
    // Ordered by the server's own events, not by sleeps: the request has reached the handler,
    // then the client goes, then the server's side of the socket is closed.
    await requestReceived;
    socket.destroy();
    await new Promise((resolve) => serverSide.once('close', resolve));
    const count = await new Promise<number>((resolve) => door.getConnections((_, n) => resolve(n)));
    expect(count).toBe(0);
    const next = await exchange(door, {
      path: `/s2sp/data/${await cached()}`,
      headers: [JSON_TYPE],
      body: '{}',
    });
    expect(next.toString('latin1')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });
});

/** A large table under a fresh token in `target`. */
async function largeIn(target: typeof store): Promise<string> {
  const token = generateToken();
  await target.put(await tokenStorageKey(token), large, { ttlMs: 60_000 });
  return token;
}

/**
 * Which door answered a redemption of a table over 1 MiB: the Node door writes it in one go,
 * the Hono route as a stream, a few pieces at a time.
 */
async function doorOf(server: { address(): unknown }, token: string): Promise<'node' | 'hono'> {
  writes.length = 0;
  const answer = await exchange(server as Server, {
    path: `/s2sp/data/${token}`,
    headers: [JSON_TYPE],
    body: '{}',
  });
  expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  expect(writes).toHaveLength(1);
  return writes[0] === 1 ? 'node' : 'hono';
}

describe('which door', () => {
  it('toNodeHandler serves on Node for the data-plane app, also mounted in an app of the user', async () => {
    const own = createDataPlaneApp({ store });
    const outer = new Hono();
    outer.get('/elsewhere', (c) => c.text('ok'));
    outer.route('/', own);
    for (const app of [own, outer]) {
      const server = createServer(toNodeHandler(app)).listen(0, '127.0.0.1');
      await listening(server);
      try {
        expect(await doorOf(server, await largeIn(store))).toBe('node');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it("toNodeHandler goes through Hono when the user's middleware could run for the data plane, and it runs", async () => {
    const outer = new Hono();
    let ran = 0;
    outer.use('*', async (c, next) => {
      ran++;
      await next();
      c.res.headers.set('x-added', 'yes');
    });
    outer.route('/', createDataPlaneApp({ store }));
    const server = createServer(toNodeHandler(outer)).listen(0, '127.0.0.1');
    await listening(server);
    try {
      expect(await doorOf(server, await largeIn(store))).toBe('hono');
      const answer = await exchange(server, {
        path: `/s2sp/data/${await cached()}`,
        headers: [JSON_TYPE],
        body: '{}',
      });
      expect(ran).toBe(2);
      expect(answer.toString('latin1')).toMatch(/\r\nx-added: yes\r\n/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('toNodeHandler goes through Hono once anything is added on the path of the data-plane app', async () => {
    const own = createDataPlaneApp({ store });
    const server = createServer(toNodeHandler(own)).listen(0, '127.0.0.1');
    await listening(server);
    try {
      expect(await doorOf(server, await largeIn(store))).toBe('node');
      own.get('/elsewhere', (c) => c.text('ok'));
      expect(await doorOf(server, await largeIn(store))).toBe('node');
      own.use('*', async (_c, next) => next());
      expect(await doorOf(server, await largeIn(store))).toBe('hono');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('toNodeHandler goes through Hono when the app has an error handler of its own', async () => {
    const own = createDataPlaneApp({ store });
    own.onError((_e, c) => c.text('mine', 418));
    const server = createServer(toNodeHandler(own)).listen(0, '127.0.0.1');
    await listening(server);
    try {
      const answer = await exchange(server, { path: '/s2sp/data/abc', body: '{' });
      expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 418 /);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('toNodeHandler goes through Hono for an app that routes on more than the path', async () => {
    // Routes by host and path: /s2sp/data/… is not the data plane's here.
    const outer = new Hono({
      getPath: (request) => `/${new URL(request.url).hostname}${new URL(request.url).pathname}`,
    });
    outer.route('/', createDataPlaneApp({ store }));
    const server = createServer(toNodeHandler(outer)).listen(0, '127.0.0.1');
    await listening(server);
    try {
      const answer = await exchange(server, {
        path: `/s2sp/data/${await cached()}`,
        headers: [JSON_TYPE],
        body: '{}',
      });
      expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 404 /);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("listen() serves on Node while the app is its own, and through Hono once the user's route could match", async () => {
    const server = createS2SPServer({ name: 'doors', version: '1', logger: silentLogger });
    const { port } = await server.listen();
    const http = { address: () => ({ port }) };
    try {
      expect(await doorOf(http, await largeIn(server.store))).toBe('node');
      server.app.get('/elsewhere', (c) => c.text('ok'));
      expect(await doorOf(http, await largeIn(server.store))).toBe('node');
      server.app.use('/s2sp/*', async (_c, next) => next());
      expect(await doorOf(http, await largeIn(server.store))).toBe('hono');
    } finally {
      await server.close();
    }
  });

  it("edge.listen() runs the user's middleware in front of the data plane", async () => {
    const edge = createS2SPEdge();
    const app = edge.mount(new Hono());
    let ran = 0;
    app.use('*', async (_c, next) => {
      ran++;
      await next();
    });
    app.route('/', createDataPlaneApp({ store }));
    await using listener = await edge.listen(app);
    expect(await doorOf({ address: () => ({ port: listener.port }) }, await largeIn(store))).toBe(
      'hono',
    );
    expect(ran).toBe(1);
  });

  it.each([
    ['a wildcard', '*'],
    ['a parameter first', '/:tenant/*'],
    ['another route under /s2sp', '/s2sp/other'],
  ])('listen() goes through Hono for a route of the user on %s', async (_, path) => {
    const server = createS2SPServer({ name: 'doors', version: '1', logger: silentLogger });
    server.app.get(path, (c) => c.text('mine'));
    const { port } = await server.listen();
    try {
      expect(await doorOf({ address: () => ({ port }) }, await largeIn(server.store))).toBe('hono');
    } finally {
      await server.close();
    }
  });
});

describe('the bytes of a redeemed table', () => {
  it('go back to the store once the Node door has written its answer, and never through Hono', async () => {
    const inner = createMemoryStore();
    const released: string[] = [];
    // The memory store, with every take's release counted.
    const counting: BodyStore = {
      ...inner,
      async take(key, rowIds, options) {
        const taken = await inner.take(key, rowIds, options);
        return (
          taken && {
            ...taken,
            release: () => {
              released.push(key);
              taken.release?.();
            },
          }
        );
      },
    };
    const own = createDataPlaneApp({ store: counting });
    const servers = {
      node: createServer(toNodeHandler(own)).listen(0, '127.0.0.1'),
      hono: serve({ fetch: own.fetch, port: 0, hostname: '127.0.0.1' }) as Server,
    };
    await Promise.all(Object.values(servers).map(listening));
    try {
      for (const [door, server] of Object.entries(servers)) {
        for (const body of ['{}', '{"row_ids":[1,3]}']) {
          const token = await largeIn(inner);
          const before = released.length;
          // The Node door releases on the response's 'finish', which comes before its 'close'.
          const closed = new Promise((resolve) =>
            server.once('request', (_, response: ServerResponse) =>
              response.once('close', resolve),
            ),
          );
          const answer = await exchange(server, {
            path: `/s2sp/data/${token}`,
            headers: [JSON_TYPE],
            body,
          });
          expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 200 /);
          await closed;
          expect([door, released.length - before]).toEqual([door, door === 'node' ? 1 : 0]);
        }
      }
    } finally {
      await Promise.all(
        Object.values(servers).map((s) => new Promise((resolve) => s.close(resolve))),
      );
      await inner.close();
    }
  });
});
