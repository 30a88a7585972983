/**
 * Benchmark (not a test): fetching a handful of rows from a large cached table must cost about
 * the same as from a small one, because rows are hash fields read with HMGET inside the take
 * script; the rest of the table is neither transferred nor parsed. Target: 10 rows out of
 * 100 000 within 3× the time of 10 rows out of 100. Also times a pipelined put of 100 000 rows
 * and a take of all of them.
 *
 * Run after a build:  pnpm --filter @s2sp/cache-redis build && node packages/cache-redis/bench/selective-fetch.mjs
 * Uses REDIS_URL when set; otherwise starts a throwaway redis-server on a free port. Needs about
 * 0.5 GB of Redis memory for a moment (15 copies of the large table).
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedisBodyStore } from '../dist/index.js';

const SMALL = 100;
const LARGE = 100_000;
const PICK = 10;
const ROUNDS = 15; // 15 large tables at once: about 0.5 GB of Redis memory

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function ping(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
  });
}

async function startRedis() {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} };
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 's2sp-bench-redis-'));
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  await new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', () =>
      reject(new Error('redis-server not found: apt-get install redis-server, or set REDIS_URL')),
    );
  });
  for (let i = 0; i < 200 && !(await ping(port)); i++) await new Promise((r) => setTimeout(r, 25));
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A table of `n` rows of about 300 characters, like a weather alert with its text. */
function makeTable(n) {
  const rows = [];
  for (let i = 0; i < n; i++) {
    rows.push(
      JSON.stringify({
        _row_id: i,
        event: i % 3 ? 'Wind Advisory' : 'Flood Warning',
        severity: ['Minor', 'Moderate', 'Severe'][i % 3],
        area: `Zone ${i % 250}`,
        onset: '2026-11-22T10:00:00Z',
        description: `Gusts up to ${40 + (i % 30)} mph expected. ${'Secure outdoor objects. '.repeat(6)}`,
      }),
    );
  }
  return { columns: ['event', 'severity', 'area', 'onset', 'description'], rows };
}

const freshKey = () => createHash('sha256').update(randomBytes(32)).digest('hex');
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value) => `${value.toFixed(2)} ms`;

/**
 * Median time of a take of {@link PICK} random rows from each table. All entries are put first
 * and the takes come after a pause, so that the work a 28 MiB put leaves behind (garbage to
 * collect here, memory to recycle in Redis) is not billed to the take that follows it; takes
 * alternate between the tables, so the background freeing of a taken large table weighs on both
 * measurements alike.
 */
async function timeSelectiveTakes(small, large, rounds) {
  const keys = [];
  for (let round = 0; round < rounds; round++) {
    const pair = { small: freshKey(), large: freshKey() };
    await store.put(pair.small, small, { ttlMs: 600_000 });
    await store.put(pair.large, large, { ttlMs: 600_000 });
    keys.push(pair);
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  const samples = { small: [], large: [] };
  for (const [round, pair] of keys.entries()) {
    for (const name of round % 2 ? ['small', 'large'] : ['large', 'small']) {
      const table = name === 'small' ? small : large;
      const ids = Array.from({ length: PICK }, () => Math.floor(Math.random() * table.rows.length));
      const started = performance.now();
      const taken = await store.take(pair[name], ids);
      samples[name].push(performance.now() - started);
      if (taken?.rows.length !== PICK || taken.rows[0] !== table.rows[ids[0]])
        throw new Error('the take returned the wrong rows');
    }
  }
  return { small: median(samples.small), large: median(samples.large) };
}

const redis = await startRedis();
const store = createRedisBodyStore({ url: redis.url, keyPrefix: 's2sp-bench:' });

try {
  const small = makeTable(SMALL);
  const large = makeTable(LARGE);
  const largeChars = large.rows.reduce((sum, row) => sum + row.length, 0);
  console.log(
    `tables: ${SMALL} rows and ${LARGE} rows (${(largeChars / 1024 / 1024).toFixed(1)} MiB of JSON)`,
  );

  // Warm up the connection, the clock offset, the script cache and the JIT.
  await timeSelectiveTakes(small, makeTable(1000), 20);

  const putKey = freshKey();
  let started = performance.now();
  await store.put(putKey, large, { ttlMs: 600_000 });
  const putMs = performance.now() - started;
  started = performance.now();
  const all = await store.take(putKey);
  const takeAllMs = performance.now() - started;
  if (all?.rows.length !== LARGE || all.rows[LARGE - 1] !== large.rows[LARGE - 1])
    throw new Error('take of all rows lost the table order');

  const { small: smallMs, large: largeMs } = await timeSelectiveTakes(small, large, ROUNDS);
  const ratio = largeMs / smallMs;

  console.log(`put of ${LARGE} rows (chunked, pipelined):   ${ms(putMs)}`);
  console.log(`take of all ${LARGE} rows, in table order:   ${ms(takeAllMs)}`);
  console.log(`take of ${PICK} rows from ${SMALL} rows (median):     ${ms(smallMs)}`);
  console.log(`take of ${PICK} rows from ${LARGE} rows (median): ${ms(largeMs)}`);
  console.log(
    `ratio large / small: ${ratio.toFixed(2)}× (target ≤ 3×) ${ratio <= 3 ? 'OK' : 'MISSED'}`,
  );
  process.exitCode = ratio <= 3 ? 0 : 1;
} finally {
  await store.close();
  await redis.stop();
}
