/**
 * One server under test, in its own process: `floor` (a bare node:http server sending the
 * pre-rendered response), `raw-redis` (node:http answering with a node-redis GET of those same
 * bytes, as a Buffer), or the real S2SP data plane over the `memory` or `redis` store, served by
 * `toNodeHandler` (its Node front door); `redis-peer` is the Redis store redeeming tables that
 * another replica's store wrote.
 *
 * Requests from the parent: `prepare` (build the table of a size, deterministic), `prepare-answer`
 * (the floors answer a selective fetch instead of the whole table), `mint` (cache it under fresh
 * tokens; on the floors, write fresh copies of the body, each read once through `/fresh/<id>`),
 * `reset` (drop every entry), `memory` (this process's memory usage), `cpu` (its CPU time while
 * handling requests since the last `cpu`, and how many), `redis-time` (Redis's own time since the
 * last `redis-time`, minting left out; Redis-backed servers), `settle` (wait until Redis has freed
 * what the last load left to expire).
 */
import { writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpuUsage, memoryUsage } from 'node:process';
import { createRedisBodyStore } from '@s2sp/cache-redis';
import { generateToken, tokenStorageKey } from '@s2sp/core';
import { type BodyStore, createMemoryStore, type StoredTable } from '@s2sp/core/store';
import { prepareTable, serializeTable } from '@s2sp/server';
import { createDataPlaneApp } from '@s2sp/server/http';
import { toNodeHandler } from '@s2sp/server/node';
import { generateRows } from '@s2sp/test-utils';
import { createClient, RESP_TYPES } from 'redis';
import { serveParent } from '../child.js';
import { type PythonReference, startPythonReference } from '../python-reference.js';
import { createRedisMeter } from './redis-meter.js';

const [kind, redisUrl = ''] = process.argv.slice(2);
let table: StoredTable | undefined;
let body: Uint8Array = new Uint8Array(0);

const overRedis = kind === 'redis' || kind === 'redis-peer';
const redisStore = (nearCacheBytes?: number) =>
  createRedisBodyStore({
    url: redisUrl,
    keyPrefix: `bench${process.pid}:`,
    commandTimeoutMs: 60_000,
    evictionPolicyCheck: 'off',
    ...(nearCacheBytes !== undefined && { nearCacheBytes }),
  });
// Each load mints all its tables before the first request (up to 200 of 1.2 MB, or 16 of
// 118 MB): the near cache holds them all, as the memory store's budget does, so that `redis`
// measures what its name says. A server redeeming tables soon after minting them needs far less.
const makeStore = (): BodyStore =>
  overRedis
    ? redisStore(kind === 'redis' ? 4 * 1024 ** 3 : undefined)
    : createMemoryStore({ maxBytes: 16 * 1024 ** 3, maxEntries: 1_000_000 });
// `redis-peer`: the tables are written by another replica's store (same Redis and prefix), so
// the data plane's store has no near copy and reads them from Redis. Without a near cache of its
// own: in a deployment that replica is another process, whose memory this one does not pay for.
const peer = kind === 'redis-peer' ? redisStore(0) : undefined;

let store: BodyStore | undefined;
const redis =
  kind === 'raw-redis'
    ? createClient({ url: redisUrl }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer })
    : undefined;
const RAW_KEY = `bench-raw-${process.pid}`;
// `python` and `python-fresh` (rows of its own per token): this process only drives the
// reference's own server, which the client hits directly.
let python: PythonReference | undefined;
const PYTHON_ROWS = `/tmp/s2sp-bench-python-rows-${process.pid}.json`;

// CPU time of this process while requests were handled (from each request's event to its
// response's 'finish'), helper threads included: a figure the machine's noise moves far less than
// a latency, for telling builds apart. Read and reset with `cpu`.
const handled = { cpuUs: 0, requests: 0 };

function metered(listener: RequestListener): RequestListener {
  return (req, res) => {
    const start = cpuUsage();
    res.once('finish', () => {
      const used = cpuUsage(start);
      handled.cpuUs += used.user + used.system;
      handled.requests++;
    });
    listener(req, res);
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

async function start(): Promise<number> {
  if (kind === 'python' || kind === 'python-fresh') {
    python = await startPythonReference({ freshRows: kind === 'python-fresh' });
    process.on('exit', () => python?.close());
    return python.port;
  }
  if (kind === 'floor' || kind === 'raw-redis') {
    if (redis) await redis.connect();
    const server = createServer(
      metered((req, res) => {
        req.resume();
        req.on('end', async () => {
          // `/fresh/<n>`: the n-th copy minted for this load, read once, cold in Redis's memory as
          // every single-use redemption is; `/taken/<n>` (raw Redis): read with GETDEL, deleted as
          // a single-use store deletes what it redeems; any other path: the one key, read again
          // and again.
          const copy = /^\/(fresh|taken)\/(\d+)$/.exec(req.url ?? '');
          const fresh = copy ? `${RAW_KEY}:${copy[2]}` : RAW_KEY;
          let bytes: Uint8Array = body;
          if (redis)
            bytes = (await (copy?.[1] === 'taken'
              ? redis.getDel(fresh)
              : redis.get(fresh))) as Buffer;
          else if (fresh !== RAW_KEY) {
            // The floor's fresh copy: bytes written once and never sent before, as a store's
            // tables are, not one buffer the CPU's caches keep hot across requests.
            bytes = floorCopies.get(fresh) ?? body;
            floorCopies.delete(fresh);
          }
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-length': bytes.byteLength,
            'cache-control': 'no-store',
          });
          res.end(bytes);
        });
      }),
    );
    return listen(server);
  }
  store = makeStore();
  // The data plane served the way its docs recommend for speed (its Node front door), with the
  // meter around the listener.
  return listen(createServer(metered(toNodeHandler(createDataPlaneApp({ store })))));
}

// What the loads cost Redis (Redis-backed servers), read and reset with `redis-time`.
const redisMeter = createRedisMeter(overRedis || kind === 'raw-redis' ? redisUrl : undefined);

// Copies of the body under keys of their own, one per request of a load (raw-redis only).
let rawCopies = 0;
let nextCopy = 0;

/** The floor's fresh copies of the body, each sent once (`/fresh/<n>`). */
const floorCopies = new Map<string, Uint8Array>();

async function dropFreshCopies(): Promise<void> {
  floorCopies.clear();
  if (!redis) return;
  for (let i = nextCopy - rawCopies; i < nextCopy; i++) await redis.del(`${RAW_KEY}:${i}`);
  rawCopies = 0;
}

/** Writes `count` fresh copies of the body (dropping the last load's) and names their paths' ids. */
async function mintFreshCopies(count: number): Promise<string[]> {
  await dropFreshCopies();
  const copy = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    if (redis) await redis.set(`${RAW_KEY}:${nextCopy}`, copy);
    else floorCopies.set(`${RAW_KEY}:${nextCopy}`, Uint8Array.from(body));
    ids.push(String(nextCopy++));
  }
  rawCopies = count;
  return ids;
}

/** Tokens (data planes) or fresh-copy ids (floors) for `count` requests of a load. */
async function mint(count: number): Promise<unknown> {
  if (python) return python.call({ op: 'mint', count });
  if (kind === 'floor' || redis) return mintFreshCopies(count);
  if (!store || !table) throw new Error('mint needs a data-plane server and a prepared table');
  const tokens = Array.from({ length: count }, generateToken);
  const writer = peer ?? store;
  for (const token of tokens)
    await writer.put(await tokenStorageKey(token), table, { ttlMs: 600_000 });
  return tokens;
}

const port = await start();

serveParent(async (message) => {
  switch (message.op) {
    case 'port':
      return port;
    case 'prepare': {
      table = serializeTable(prepareTable(generateRows(message.size as number)));
      // The PROTOCOL §3 body of a whole-table redemption, byte for byte what the data plane sends.
      body = new TextEncoder().encode(
        `{"body":[${table.rows.join(',')}],"total_rows":${table.rows.length},"columns_returned":${JSON.stringify(['_row_id', ...table.columns])}}`,
      );
      if (redis)
        await redis.set(RAW_KEY, Buffer.from(body.buffer, body.byteOffset, body.byteLength));
      if (python) {
        // The same rows, each with its _row_id, as the reference's resource tool caches them.
        writeFileSync(PYTHON_ROWS, `[${table.rows.join(',')}]`);
        await python.call({ op: 'prepare', file: PYTHON_ROWS });
      }
      return body.byteLength;
    }
    case 'prepare-answer': {
      // A floor for a selective fetch: the data plane's answer to `{"row_ids":[…]}` on the
      // prepared table (PROTOCOL §3: table order, each once), pre-rendered byte for byte.
      if (!table) throw new Error('prepare-answer needs a prepared table');
      const ids = [...new Set(message.rowIds as number[])].sort((a, b) => a - b);
      const rows = ids.map((id) => table?.rows[id] as string);
      body = new TextEncoder().encode(
        `{"body":[${rows.join(',')}],"total_rows":${rows.length},"columns_returned":${JSON.stringify(['_row_id', ...table.columns])}}`,
      );
      if (redis)
        await redis.set(RAW_KEY, Buffer.from(body.buffer, body.byteOffset, body.byteLength));
      return body.byteLength;
    }
    case 'prepare-big': {
      // About `mb` MB of ~1.2 KB rows, built from a few distinct rows so that building it costs
      // little beyond the table itself.
      const sample = serializeTable(prepareTable(generateRows(64))).rows.map((row) =>
        row.slice(row.indexOf(',')),
      );
      const perRow = sample.reduce((n, r) => n + r.length, 0) / sample.length + 16;
      const count = Math.round(((message.mb as number) * 1e6) / perRow);
      const rows = Array.from({ length: count }, (_, i) => `{"_row_id":${i}${sample[i % 64]}`);
      table = { columns: serializeTable(prepareTable(generateRows(1))).columns, rows };
      return { rows: count, bytes: rows.reduce((n, r) => n + r.length + 1, -1) };
    }
    case 'drop-table': {
      table = undefined;
      (globalThis as { gc?: () => void }).gc?.();
      return true;
    }
    case 'mint':
      // Minting's garbage is left to the collector, as a server minting and redeeming at once
      // leaves it: a gc() here took it out of the server-CPU figure but slowed the requests that
      // followed (memory store p50 at 1,000 rows 0.27–0.34 ms against 0.20–0.22 without).
      return redisMeter.excluding(() => mint(message.count as number));
    case 'settle':
      // The load measured next, another server's, must not pay for what this one left to free.
      await redisMeter.settle();
      return true;
    case 'redis-time':
      return redisMeter.read();
    case 'reset': {
      await dropFreshCopies();
      if (redis) await redis.del(RAW_KEY);
      if (python) await python.call({ op: 'reset' });
      table = undefined;
      body = new Uint8Array(0);
      return true;
    }
    case 'cpu': {
      const read = { ...handled };
      handled.cpuUs = 0;
      handled.requests = 0;
      return read;
    }
    case 'memory': {
      const m = memoryUsage();
      return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
    }
    default:
      throw new Error(`unknown request ${String(message.op)}`);
  }
});
