import { connect } from 'node:net';
import { generateToken, S2SPError, tokenStorageKey } from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createDataPlaneApp } from '../data-plane/data-plane.js';
import { nodeFrontDoor } from '../data-plane/node-front-door.js';
import { prepareTable, serializeTable } from '../resource/table.js';
import { listenOnNode, SHUTDOWN_RETRY_AFTER_SECONDS } from './node-listener.js';

/**
 * An app whose `/slow` answer sends its first chunk at once and the rest when `release()` is
 * called: a redemption streaming its body while the server is told to stop.
 */
function slowApp() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const app = new Hono();
  app.post('/slow', () => {
    started();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('first-half;'));
        await released;
        controller.enqueue(new TextEncoder().encode('second-half'));
        controller.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/plain' } });
  });
  app.post('/fast', (c) => c.text('fast'));
  return { app, release, running };
}

/**
 * Sends raw HTTP/1.1 on one socket; `done` resolves with everything read until the server closes
 * it, and `send` writes more on the same connection.
 */
function rawExchange(
  port: number,
  requests: string,
): { done: Promise<{ text: string; error?: string }>; send: (more: string) => void } {
  const socket = connect(port, '127.0.0.1');
  const done = new Promise<{ text: string; error?: string }>((resolve) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ text, error: error.code ?? 'error' }),
    );
    socket.on('close', () => resolve({ text }));
  });
  socket.write(requests);
  return { done, send: (more) => socket.write(more) };
}

const post = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n`;

function connectError(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
  });
}

describe('listenOnNode shutdown()', () => {
  it('lets a running answer finish, refuses new connections and answers a request behind it 503 with Retry-After', async () => {
    const { app, release, running } = slowApp();
    const listener = await listenOnNode(app.fetch);
    const exchange = rawExchange(listener.port, post('/slow'));
    await running;
    const stopped = listener.shutdown({ graceMs: 30_000 });
    expect(await connectError(listener.port)).toBe('ECONNREFUSED');
    // A second request on the open connection, pipelined behind the running one.
    exchange.send(post('/fast'));
    // Time for the server to read it while the first answer still holds the connection open (a
    // request that arrives after the last answer finds the connection closing instead).
    await new Promise((resolve) => setTimeout(resolve, 500));
    release();
    const { text, error } = await exchange.done;
    await stopped;

    expect(error).toBeUndefined();
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((answer) => answer.slice(9, 12))).toEqual(['200', '503']);
    expect(answers[0]).toContain('first-half;');
    expect(answers[0]).toContain('second-half');
    expect(answers[1]?.toLowerCase()).toContain(`retry-after: ${SHUTDOWN_RETRY_AFTER_SECONDS}\r\n`);
    expect(answers[1]?.toLowerCase()).toContain('connection: close\r\n');
    const body = JSON.parse(answers[1]?.split('\r\n\r\n')[1] ?? '{}') as {
      error?: { code?: string; status?: number };
    };
    expect(body.error).toMatchObject({ code: 'unavailable', status: 503 });
  });

  it('cuts what is still running when graceMs is over', async () => {
    const { app, running } = slowApp();
    const listener = await listenOnNode(app.fetch);
    const exchange = rawExchange(listener.port, post('/slow'));
    await running;
    await listener.shutdown({ graceMs: 200 });
    const { text } = await exchange.done;
    expect(text.slice(9, 12)).toBe('200');
    expect(text).toContain('first-half;');
    expect(text).not.toContain('second-half');
  });

  it('uses the listener’s shutdownGraceMs when shutdown() is given none, and close() cuts at once', async () => {
    const graceful = slowApp();
    const withDefault = await listenOnNode(graceful.app.fetch, {}, { shutdownGraceMs: 30_000 });
    const finished = rawExchange(withDefault.port, post('/slow'));
    await graceful.running;
    const stopped = withDefault.shutdown();
    graceful.release();
    await stopped;
    expect((await finished.done).text).toContain('second-half');

    const cut = slowApp();
    const closing = await listenOnNode(cut.app.fetch, {}, { shutdownGraceMs: 30_000 });
    const exchange = rawExchange(closing.port, post('/slow'));
    await cut.running;
    await closing.close();
    expect((await exchange.done).text).not.toContain('second-half');
  });
});

describe("listenOnNode with the data plane's Node front door", () => {
  it('serves a redemption on the door, and answers one behind a draining shutdown 503 like any request', async () => {
    const store = createMemoryStore();
    const { app: slow, release, running } = slowApp();
    const app = createDataPlaneApp({ store });
    app.route('/', slow);
    const listener = await listenOnNode(app.fetch, {}, { frontDoor: nodeFrontDoor(app) });
    const table = serializeTable(prepareTable([{ a: 1 }, { a: 2 }]));
    const redemption = async () => {
      const token = generateToken();
      await store.put(await tokenStorageKey(token), table, { ttlMs: 60_000 });
      return `POST /s2sp/data/${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n`;
    };
    const served = rawExchange(
      listener.port,
      `${(await redemption()).replace('Content-Length: 0', 'Connection: close\r\nContent-Length: 0')}`,
    );
    expect((await served.done).text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*"total_rows":2/);

    const exchange = rawExchange(listener.port, post('/slow'));
    await running;
    const stopped = listener.shutdown({ graceMs: 30_000 });
    exchange.send(await redemption());
    await new Promise((resolve) => setTimeout(resolve, 500));
    release();
    const { text } = await exchange.done;
    await stopped;
    await store.close();
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((answer) => answer.slice(9, 12))).toEqual(['200', '503']);
    expect(answers[1]?.toLowerCase()).toContain(`retry-after: ${SHUTDOWN_RETRY_AFTER_SECONDS}\r\n`);
  });
});

describe('listenOnNode port', () => {
  it.each([[-1], [65_536], [1.5], [Number.NaN]])(
    'refuses %j by the one port rule, naming the option',
    async (port) => {
      const error = await listenOnNode(() => new Response('ok'), { port }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(S2SPError.isInstance(error) && [error.code, error.data]).toEqual([
        'invalid_config',
        { option: 'port' },
      ]);
    },
  );
});
