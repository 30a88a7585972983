import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { generateToken, tokenStorageKey } from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataPlaneApp } from '../data-plane/data-plane.js';
import { prepareTable, serializeTable } from '../resource/table.js';
import { readNode } from './request-body.js';

// The Node fast path of readRequestBody runs only under @hono/node-server, on a real socket.
const store = createMemoryStore();
let server: ReturnType<typeof serve>;
let port: number;

beforeAll(async () => {
  server = serve({
    fetch: createDataPlaneApp({ store, maxRequestBytes: 1000 }).fetch,
    port: 0,
    hostname: '127.0.0.1',
  });
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await store.close();
});

async function cached(): Promise<string> {
  const token = generateToken();
  const table = serializeTable(prepareTable([{ a: 1 }, { a: 2 }]));
  await store.put(await tokenStorageKey(token), table, { ttlMs: 60_000 });
  return token;
}

/** POSTs `chunks` (chunked encoding when `declare` is false) and reads the answer. */
function post(
  token: string,
  chunks: string[],
  declare = true,
): Promise<{ status: number; body: string }> {
  const body = chunks.join('');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/s2sp/data/${token}`,
        headers: {
          'content-type': 'application/json',
          ...(declare && { 'content-length': Buffer.byteLength(body) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('readRequestBody on @hono/node-server', () => {
  it('reads a body sent in pieces, and an empty one', async () => {
    const answer = await post(await cached(), ['{"row_ids"', ':[1]', '}'], false);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).body).toEqual([{ _row_id: 1, a: 2 }]);
    expect((await post(await cached(), [])).status).toBe(200);
  });

  it('answers 413 for a body over the limit, declared or streamed, and leaves the token redeemable', async () => {
    const token = await cached();
    const big = `{"row_ids":[${'0,'.repeat(2000)}0]}`;
    const declared = await post(token, [big]);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error.code).toBe('payload_too_large');
    const streamed = await post(token, big.match(/.{1,300}/g) as string[], false);
    expect(streamed.status).toBe(413);
    expect((await post(token, ['{}'])).status).toBe(200);
  });

  it('rejects a body that is not UTF-8 with 400', async () => {
    const token = await cached();
    const answer = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/s2sp/data/${token}`,
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(Buffer.from([0x7b, 0xff, 0x7d]));
    });
    expect(answer).toBe(400);
  });
});

describe('readNode on a Node request', () => {
  /** A server that reads each body with readNode after a turn of the microtask queue. */
  async function reading(): Promise<{
    port: number;
    seen: { body: string; ended: boolean }[];
    close: () => Promise<void>;
  }> {
    const seen: { body: string; ended: boolean }[] = [];
    const server = createServer(async (req, res) => {
      let ended = false;
      req.once('end', () => {
        ended = true;
      });
      await null;
      const bytes = await readNode(req, 1000, 1000);
      await new Promise((resolve) => setImmediate(resolve));
      seen.push({ body: bytes ? Buffer.from(bytes).toString() : '(over)', ended });
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as AddressInfo).port,
      seen,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  function send(port: number, agent: Agent, chunks: string[], gapMs = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          agent,
          method: 'POST',
          path: '/',
          headers: { 'content-length': Buffer.byteLength(chunks.join('')) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      const write = async () => {
        for (const chunk of chunks) {
          req.write(chunk);
          if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        }
        req.end();
      };
      void write();
    });
  }

  it('takes a body that is all here at once, lets the request end, and serves the next on the connection', async () => {
    const { port, seen, close } = await reading();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await send(port, agent, ['{"row_ids":[1,2]}'])).toBe(200);
      expect(await send(port, agent, ['{}'])).toBe(200);
      expect(seen).toEqual([
        { body: '{"row_ids":[1,2]}', ended: true },
        { body: '{}', ended: true },
      ]);
    } finally {
      agent.destroy();
      await close();
    }
  });

  it('waits for a body that arrives in pieces', async () => {
    const { port, seen, close } = await reading();
    const agent = new Agent({ keepAlive: false });
    try {
      expect(await send(port, agent, ['{"row_', 'ids":[', '7]}'], 20)).toBe(200);
      expect(seen).toEqual([{ body: '{"row_ids":[7]}', ended: true }]);
    } finally {
      agent.destroy();
      await close();
    }
  });
});
