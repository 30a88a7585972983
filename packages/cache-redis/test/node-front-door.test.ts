// A table the Redis store streams, served by the data plane's Node front door (`toNodeHandler`):
// a slow reader gets every byte while the server buffers a bounded amount (it waits for `drain`),
// and a reader that goes away mid-body leaves the server serving the next request.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { generateToken, tokenStorageKey } from '@s2sp/core';
import { prepareTable, serializeTable } from '@s2sp/server';
import { createDataPlaneApp } from '@s2sp/server/http';
import { toNodeHandler } from '@s2sp/server/node';
import { type RedisTestServer, startRedis } from '@s2sp/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisBodyStore, type RedisBodyStore } from '../src/index.js';
import { uniquePrefix } from './helpers.js';

const ROWS = 24_000;
// ~1 KB rows: a body of ~24 MB, several times what the door takes before the status (4 MiB).
const table = serializeTable(
  prepareTable(Array.from({ length: ROWS }, (_, i) => ({ n: i, text: 'r'.repeat(1000) }))),
);

let redis: RedisTestServer;
let store: RedisBodyStore;
let server: Server;
/** The server's responses, as they start. */
const responses: ServerResponse[] = [];
const onRequest = (message: unknown) => {
  responses.push((message as { response: ServerResponse }).response);
};

beforeAll(async () => {
  redis = await startRedis();
  // No near copies: these tests are about a body streamed from Redis's blocks.
  store = createRedisBodyStore({ url: redis.url, keyPrefix: uniquePrefix(), nearCacheBytes: 0 });
  server = createServer(toNodeHandler(createDataPlaneApp({ store }))).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  subscribe('http.server.request.start', onRequest);
}, 60_000);

afterAll(async () => {
  unsubscribe('http.server.request.start', onRequest);
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  await redis.stop();
});

async function cached(): Promise<string> {
  const token = generateToken();
  await store.put(await tokenStorageKey(token), table, { ttlMs: 60_000 });
  return token;
}

function request(token: string): Socket {
  const { port } = server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  socket.write(
    `POST /s2sp/data/${token} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`,
  );
  return socket;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the Node front door over the Redis store', () => {
  it('sends a large table to a slow reader whole, buffering a bounded amount', async () => {
    responses.length = 0;
    const socket = request(await cached());
    const parts: Buffer[] = [];
    socket.on('data', (part: Buffer) => {
      parts.push(part);
      // A slow reader: a pause after every piece it reads.
      socket.pause();
      setTimeout(() => socket.resume(), 1);
    });
    let most = 0;
    const closed = new Promise((resolve) => socket.once('close', resolve));
    while (!socket.destroyed) {
      most = Math.max(most, responses[0]?.writableLength ?? 0);
      await sleep(5);
    }
    await closed;
    const text = Buffer.concat(parts).toString('utf8');
    const [head = '', body = ''] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
    expect(Buffer.byteLength(body)).toBe(length);
    expect(length).toBeGreaterThan(20 * 1024 * 1024);
    const parsed = JSON.parse(body) as { body: { n: number }[]; total_rows: number };
    expect(parsed.total_rows).toBe(ROWS);
    expect(parsed.body.map((row) => row.n)).toEqual(Array.from({ length: ROWS }, (_, i) => i));
    // What the server held for the socket stayed well under the body: it waited for `drain`.
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThan(length / 2);
  }, 60_000);

  it('stops sending to a reader that goes away mid-body, and serves the next', async () => {
    responses.length = 0;
    const socket = request(await cached());
    await new Promise<void>((resolve) => {
      let read = 0;
      socket.on('data', (part: Buffer) => {
        read += part.byteLength;
        if (read > 1024 * 1024) {
          socket.destroy();
          resolve();
        }
      });
    });
    const gone = responses[0];
    await new Promise((resolve) =>
      gone?.closed ? resolve(undefined) : gone?.once('close', resolve),
    );
    expect(gone?.writableFinished).toBe(false);

    const next = request(await cached());
    const parts: Buffer[] = [];
    next.on('data', (part: Buffer) => parts.push(part));
    await new Promise((resolve) => next.once('close', resolve));
    const text = Buffer.concat(parts).toString('utf8');
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect((JSON.parse(text.split('\r\n\r\n')[1] ?? '') as { total_rows: number }).total_rows).toBe(
      ROWS,
    );
  }, 60_000);
});
