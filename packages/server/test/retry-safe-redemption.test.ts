// Retry-safe redemption (PROTOCOL §7.10) end to end: a real data plane on a socket behind a real
// loopback proxy that drops or cuts responses after the take, fetched with fetchBody and
// fetchBodyRows.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  type FetchBodyOptions,
  fetchBodyRows as fetchBodyRowsSafe,
  fetchBody as fetchBodySafe,
  generateToken,
  S2SPError,
  tokenStorageKey,
} from '@s2sp/core';
import { createMemoryStore } from '@s2sp/core/store';
import { type Fault, type FaultProxy, startFaultProxy } from '@s2sp/test-utils';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDataPlaneApp } from '../src/http/index.js';
import { createS2SPServer, silentLogger } from '../src/index.js';
import { prepareTable, serializeTable } from '../src/resource/table.js';

// Loopback data planes: these tests opt out of public destinations only.
const fetchBody = (url: string, options: FetchBodyOptions = {}) =>
  fetchBodySafe(url, { destinations: 'any', ...options });
const fetchBodyRows = (url: string, options: FetchBodyOptions = {}) =>
  fetchBodyRowsSafe(url, { destinations: 'any', ...options });

const store = createMemoryStore();
let server: ReturnType<typeof serve>;
let proxy: FaultProxy;
/** Faults for the next requests through the proxy, in order; then every request passes. */
let plan: Fault[] = [];
/** The Idempotency-Key of every request through the proxy (`undefined` when none). */
let keys: (string | undefined)[] = [];

const rows = Array.from({ length: 3000 }, (_, i) => ({ event: `e${i}`, text: 'x'.repeat(i % 90) }));
const expected = rows.map((row, i) => ({ _row_id: i, ...row }));

beforeAll(async () => {
  server = serve({ fetch: createDataPlaneApp({ store }).fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  proxy = await startFaultProxy((server.address() as AddressInfo).port, (request) => {
    keys.push(request.idempotencyKey);
    return plan.shift() ?? 'pass';
  });
});

beforeEach(() => {
  plan = [];
  keys = [];
});

afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => server.close(resolve));
  await store.close();
});

async function cached(): Promise<string> {
  const token = generateToken();
  await store.put(await tokenStorageKey(token), serializeTable(prepareTable(rows)), {
    ttlMs: 60_000,
  });
  return `${proxy.url}/s2sp/data/${token}`;
}

async function collect<T>(rowsOf: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rowsOf) out.push(row);
  return out;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return S2SPError.isInstance(error) ? error.code : String(error);
}

describe('fetchBody through a proxy that breaks responses after the take', () => {
  it.each([
    ['dropped', ['drop'] as Fault[]],
    ['cut short', ['truncate'] as Fault[]],
    ['dropped, then cut short, then dropped', ['drop', 'truncate', 'drop'] as Fault[]],
  ])(
    'gets every row when the first answers were %s, with one key for all attempts',
    async (_label, faults) => {
      const url = await cached();
      plan = [...faults];
      const result = await fetchBody(url, { rowIds: [5, 1, 2999] });
      expect(result.body).toEqual([expected[1], expected[5], expected[2999]]);
      expect(keys).toHaveLength(faults.length + 1);
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    },
  );

  it('loses the rows without retries: no key is sent, and the token is spent', async () => {
    const url = await cached();
    plan = ['drop'];
    expect(await codeOf(fetchBody(url, { retries: 0 }))).toBe('upstream_error');
    expect(keys).toEqual([undefined]);
    expect(await codeOf(fetchBody(url))).toBe('not_found');
  });

  it('gives up after its retries, with the last failure', async () => {
    const url = await cached();
    plan = ['drop', 'drop', 'drop'];
    expect(await codeOf(fetchBody(url, { retries: 2 }))).toBe('upstream_error');
    expect(keys).toHaveLength(3);
  });

  it('never retries a 4xx', async () => {
    expect(await codeOf(fetchBody(`${proxy.url}/s2sp/data/${generateToken()}`))).toBe('not_found');
    expect(keys).toHaveLength(1);
  });

  it('stops at once when the caller cancels, also between attempts', async () => {
    const url = await cached();
    plan = Array.from({ length: 20 }, () => 'drop' as const);
    const controller = new AbortController();
    const pending = fetchBody(url, { retries: 10, signal: controller.signal });
    while (keys.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    controller.abort();
    expect(await codeOf(pending)).toBe('upstream_error');
    // At most the attempt already on its way when the signal came; none after.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(keys.length).toBeLessThanOrEqual(2);
  });
});

describe('fetchBodyRows through a proxy that breaks responses after the take', () => {
  it.each([
    ['dropped', ['drop'] as Fault[]],
    ['cut in the middle of the stream', ['truncate'] as Fault[]],
    ['cut twice', ['truncate', 'truncate'] as Fault[]],
  ])('yields every row once, in order, when the answer was %s', async (_label, faults) => {
    const url = await cached();
    plan = [...faults];
    expect(await collect(fetchBodyRows(url))).toEqual(expected);
    expect(keys).toHaveLength(faults.length + 1);
    expect(new Set(keys).size).toBe(1);
  });

  it('fails without retries, after the rows that arrived', async () => {
    const url = await cached();
    plan = ['truncate'];
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const row of fetchBodyRows(url, { retries: 0 })) seen.push(row);
    })().catch((e: unknown) => e);
    expect(S2SPError.isInstance(error) && error.code).toBe('upstream_error');
    expect(seen.length).toBeLessThan(rows.length);
    expect(await codeOf(collect(fetchBodyRows(url)))).toBe('not_found');
  });
});

describe('retries against other servers', () => {
  let fake: Server;
  let fakeUrl: string;
  let answers: { status: number; body: string }[] = [];
  const fakeKeys: (string | undefined)[] = [];

  beforeAll(async () => {
    fake = createServer((req, res) => {
      req.resume();
      fakeKeys.push(req.headers['idempotency-key'] as string | undefined);
      const answer = answers.shift() ?? { status: 404, body: '{}' };
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
    fake.listen(0, '127.0.0.1');
    await new Promise((resolve) => fake.once('listening', resolve));
    fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/s2sp/data/${generateToken()}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => fake.close(resolve));
  });

  it('retries a 5xx with the same key', async () => {
    fakeKeys.length = 0;
    answers = [
      { status: 503, body: '{}' },
      { status: 502, body: 'bad gateway' },
      { status: 200, body: '{"body":[{"_row_id":0}],"total_rows":1}' },
    ];
    expect((await fetchBody(fakeUrl)).body).toEqual([{ _row_id: 0 }]);
    expect(fakeKeys).toHaveLength(3);
    expect(new Set(fakeKeys).size).toBe(1);
  });

  it('reports 404 after a retry when the server does not repeat answers (a peer without §7.10)', async () => {
    fakeKeys.length = 0;
    answers = [{ status: 500, body: '{}' }];
    expect(await codeOf(fetchBody(fakeUrl))).toBe('not_found');
    expect(fakeKeys).toHaveLength(2);
  });
});

describe('consumer tools through the same proxy', () => {
  const consumerWith = (fetchRetries?: number) =>
    createS2SPServer({
      name: 'consumer',
      version: '1',
      logger: silentLogger,
      consumer: {
        allowedOrigins: [proxy.url],
        ...(fetchRetries !== undefined && { fetchRetries }),
      },
    });

  it('get the rows of a redemption whose first answer was dropped (default retries)', async () => {
    const consumer = consumerWith();
    plan = ['drop'];
    const { rows: resolved } = await consumer.s2sp.resolveConsumerRows({
      resource_url: await cached(),
      row_ids: [7, 3],
    });
    expect(resolved).toEqual([expected[7], expected[3]]);
    expect(keys).toHaveLength(2);
    await consumer.close();
  });

  it('lose them with consumer.fetchRetries: 0', async () => {
    const consumer = consumerWith(0);
    plan = ['drop'];
    const resource_url = await cached();
    expect(await codeOf(consumer.s2sp.resolveConsumerRows({ resource_url, row_ids: [7] }))).toBe(
      'upstream_error',
    );
    expect(keys).toEqual([undefined]);
    await consumer.close();
  });
});
