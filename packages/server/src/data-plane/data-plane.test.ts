import { generateToken, S2SPError, tokenStorageKey } from '@s2sp/core';
import { type BodyStore, createMemoryStore } from '@s2sp/core/store';
import { codeAndDataOf, sleep } from '@s2sp/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { prepareTable, serializeTable } from '../resource/table.js';
import { createDataPlaneApp } from './data-plane.js';

const rows = [
  { event: 'Wind Advisory', description: 'North winds 25 to 35 mph.' },
  { event: 'Heat Advisory', description: 'Heat index up to 110.' },
  { event: 'Flood Warning' },
];

let store: BodyStore;
let app: ReturnType<typeof createDataPlaneApp>;
beforeEach(() => {
  store = createMemoryStore();
  app = createDataPlaneApp({ store });
});
afterEach(async () => {
  await store.close();
});

async function cached(ttlMs = 60_000): Promise<string> {
  const token = generateToken();
  await store.put(await tokenStorageKey(token), serializeTable(prepareTable(rows)), { ttlMs });
  return token;
}

function post(
  token: string,
  body: string | ReadableStream<Uint8Array> | undefined = '{}',
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  return app.request(`/s2sp/data/${token}`, {
    method: 'POST',
    body,
    headers,
    ...(body instanceof ReadableStream && { duplex: 'half' }),
  } as RequestInit);
}

describe('data plane', () => {
  it('serves every row and column once, with no-store', async () => {
    const token = await cached();
    const response = await post(token);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      body: rows.map((row, i) => ({ _row_id: i, ...row })),
      total_rows: 3,
      columns_returned: ['_row_id', 'event', 'description'],
    });
    expect((await post(token)).status).toBe(404);
  });

  it('selects rows and columns and lists missing ids', async () => {
    const token = await cached();
    const response = await post(token, '{"row_ids":[2,0,9],"columns":["description"]}');
    expect(await response.json()).toEqual({
      body: [{ _row_id: 0, description: 'North winds 25 to 35 mph.' }, { _row_id: 2 }],
      total_rows: 2,
      columns_returned: ['_row_id', 'description'],
      missing_row_ids: [9],
    });
  });

  it('projects columns of every row when no row_ids are given', async () => {
    const token = await cached();
    const response = await post(token, '{"columns":["event"]}');
    expect(await response.json()).toEqual({
      body: rows.map((row, i) => ({ _row_id: i, event: row.event })),
      total_rows: 3,
      columns_returned: ['_row_id', 'event'],
    });
  });

  it('treats an empty body as {}, whatever its content type', async () => {
    const token = await cached();
    const response = await post(token, '', {});
    expect(response.status).toBe(200);
    expect(((await response.json()) as { total_rows: number }).total_rows).toBe(3);
  });

  it('answers unknown, used, expired and malformed tokens with one identical 404', async () => {
    const used = await cached();
    await post(used);
    const expired = await cached(5);
    await sleep(30);
    const bodies = [];
    for (const token of [generateToken(), used, expired, 'not-a-token', `${generateToken()}x`]) {
      const response = await post(token);
      expect(response.status).toBe(404);
      bodies.push(await response.text());
    }
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toEqual({
      error: {
        code: 'not_found',
        message: expect.stringMatching(
          /unknown, expired or already used.*Call the resource tool again/,
        ),
        status: 404,
      },
    });
  });

  it.each([
    ['bad JSON', '{"row_ids":', 400, 'invalid_request'],
    ['wrong types', '{"row_ids":"1,2"}', 400, 'invalid_request'],
    ['negative ids', '{"row_ids":[-1]}', 400, 'invalid_request'],
    ['a JSON array', '[0,1]', 400, 'invalid_request'],
    ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), 400, 'invalid_request'],
  ])('rejects %s and leaves the token redeemable', async (_name, body, status, code) => {
    const token = await cached();
    const response = await app.request(`/s2sp/data/${token}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    expect((await post(token)).status).toBe(200);
  });

  it('rejects a body without a JSON content type with 415 and leaves the token redeemable', async () => {
    const token = await cached();
    expect((await post(token, '{}', {})).status).toBe(415);
    const response = await post(token, '{}', { 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'unsupported_media_type',
    );
    expect(
      (await post(token, '{}', { 'content-type': 'application/json; charset=utf-8' })).status,
    ).toBe(200);
  });

  it('rejects bodies over 1 MiB with 413, declared or streamed, and leaves the token redeemable', async () => {
    const token = await cached();
    const big = `{"row_ids":[${'0,'.repeat(600_000)}0]}`;
    const declared = await post(token, big);
    expect(declared.status).toBe(413);
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 65_536)
          controller.enqueue(bytes.slice(i, i + 65_536));
        controller.close();
      },
    });
    const streamed = await post(token, stream);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual({
      error: {
        code: 'payload_too_large',
        message: expect.stringContaining('1048576 bytes'),
        status: 413,
      },
    });
    expect((await post(token)).status).toBe(200);
  });

  it('answers other methods with 405 and an Allow header', async () => {
    const token = await cached();
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const response = await app.request(`/s2sp/data/${token}`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(((await response.json()) as { error: { status: number } }).error.status).toBe(405);
    }
    const health = await app.request('/s2sp/health', { method: 'POST' });
    expect(health.status).toBe(405);
    expect(health.headers.get('allow')).toBe('GET');
    expect((await post(token)).status).toBe(200);
  });

  it('reports health and serves nothing else', async () => {
    const health = await app.request('/s2sp/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    for (const path of ['/', '/s2sp', '/s2sp/data', '/s2sp/data/', '/admin']) {
      const response = await app.request(path);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('turns an unavailable store into 503 and hides unexpected errors behind a generic 500', async () => {
    const failing = (error: Error): BodyStore => ({
      ...createMemoryStore(),
      take: async () => Promise.reject(error),
    });
    const down = createDataPlaneApp({
      store: failing(
        new S2SPError('unavailable', 'The S2SP cache (Redis) is unreachable. Retry shortly.'),
      ),
    });
    const unavailable = await down.request(`/s2sp/data/${generateToken()}`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(unavailable.status).toBe(503);
    expect(((await unavailable.json()) as { error: { code: string } }).error.code).toBe(
      'unavailable',
    );

    const broken = createDataPlaneApp({
      store: failing(new Error('ECONNRESET 10.0.0.7:6379 password=hunter2')),
    });
    const internal = await broken.request(`/s2sp/data/${generateToken()}`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(internal.status).toBe(500);
    const text = await internal.text();
    expect(JSON.parse(text).error.code).toBe('internal');
    expect(text).not.toMatch(/hunter2|10\.0\.0\.7/);
  });

  describe('a body over 1 MiB', () => {
    const MIB = 1024 * 1024;
    // A store whose one entry is `pieces` of 1 MiB, each produced after a timer tick (as a store
    // reading a service would), failing instead of producing piece `failAt`.
    const pieceStore = (pieces: number, failAt = Number.POSITIVE_INFINITY): BodyStore => ({
      ...createMemoryStore(),
      take: async () => ({
        columns: ['a'],
        tableRows: 1,
        missing: [],
        byteLength: pieces * MIB,
        ends: Uint32Array.of(pieces * MIB),
        chunks: (async function* () {
          for (let i = 0; i < pieces; i++) {
            await sleep(1);
            if (i === failAt)
              throw new S2SPError('unavailable', 'The S2SP cache (Redis) is unreachable.');
            yield new Uint8Array(MIB).fill(97 + i);
          }
        })(),
      }),
    });
    const redeem = (pieces: number, failAt?: number) =>
      createDataPlaneApp({ store: pieceStore(pieces, failAt) }).request(
        `/s2sp/data/${generateToken()}`,
        { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } },
      );

    it('sends every piece in order, those at hand first and the rest as they come', async () => {
      const response = await redeem(7);
      expect(response.status).toBe(200);
      const body = new Uint8Array(await response.arrayBuffer());
      expect(body.byteLength).toBe(Number(response.headers.get('content-length')));
      const head = '{"body":['.length;
      for (let i = 0; i < 7; i++) {
        expect(body[head + i * MIB]).toBe(97 + i);
        expect(body[head + (i + 1) * MIB - 1]).toBe(97 + i);
      }
      expect(new TextDecoder().decode(body.subarray(head + 7 * MIB))).toBe(
        '],"total_rows":1,"columns_returned":["_row_id","a"]}',
      );
    });

    it('answers a store failing before the first 4 MiB are out with an error, not a cut 200', async () => {
      const response = await redeem(7, 2);
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
        'unavailable',
      );
    });

    it('cuts the body of a store failing later, so it never looks complete', async () => {
      const response = await redeem(7, 5);
      expect(response.status).toBe(200);
      const read = await response.arrayBuffer().then(
        (bytes) => bytes.byteLength,
        (error: unknown) => error,
      );
      expect(S2SPError.isInstance(read) && read.code).toBe('unavailable');
    });
  });

  it('refuses a limit that cannot work', () => {
    expect(codeAndDataOf(() => createDataPlaneApp({ store, maxRequestBytes: 0 }))).toEqual([
      'invalid_config',
      { option: 'maxRequestBytes' },
    ]);
  });
});

describe('data plane row_ids limits: a request cannot make the store do more work than the table is big', () => {
  it('refuses more distinct row_ids than the cap with 400, leaving the token redeemable', async () => {
    app = createDataPlaneApp({ store, maxRowIds: 100 });
    const token = await cached();
    const ids = Array.from({ length: 101 }, (_, i) => i);
    const over = await post(token, JSON.stringify({ row_ids: ids }));
    expect(over.status).toBe(400);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    // Repeats count once: 150 copies of one id are one id.
    const repeated = await post(token, JSON.stringify({ row_ids: Array(150).fill(1) }));
    expect(repeated.status).toBe(200);
  });

  it('refuses more row_ids than the table has rows with 400, leaving the token redeemable', async () => {
    const token = await cached();
    const over = await post(token, '{"row_ids":[0,1,2,3]}');
    expect(over.status).toBe(400);
    const body = (await over.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toMatch(/4 ids but this table has only 3 rows/);
    const ok = await post(token, '{"row_ids":[0,1,7]}');
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { missing_row_ids: number[] }).missing_row_ids).toEqual([7]);
  });

  it('has a default cap of 10 000 and refuses a bad setting', async () => {
    const token = await cached();
    const ids = Array.from({ length: 10_001 }, (_, i) => i);
    expect((await post(token, JSON.stringify({ row_ids: ids }))).status).toBe(400);
    expect(codeAndDataOf(() => createDataPlaneApp({ store, maxRowIds: 0 }))).toEqual([
      'invalid_config',
      { option: 'maxRowIds' },
    ]);
  });
});

describe('data plane: retry-safe redemption (PROTOCOL §7.10)', () => {
  const KEY = 'k'.repeat(22);
  const withKey = (key: string, extra: Record<string, string> = {}) => ({
    'content-type': 'application/json',
    'idempotency-key': key,
    ...extra,
  });

  it('answers the same key with the same request again, with the same rows', async () => {
    const token = await cached();
    const body = '{"row_ids":[2,0],"columns":["event"]}';
    const first = await post(token, body, withKey(KEY));
    expect(first.status).toBe(200);
    const expected = await first.json();
    for (let i = 0; i < 3; i++) {
      const again = await post(token, body, withKey(KEY));
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual(expected);
    }
  });

  it('repeats an NDJSON answer byte for byte (its commas were rewritten in place the first time)', async () => {
    const token = await cached();
    const headers = withKey(KEY, { accept: 'application/x-ndjson' });
    const first = await (await post(token, '{}', headers)).text();
    expect(first.split('\n')).toHaveLength(4);
    expect(await (await post(token, '{}', headers)).text()).toBe(first);
  });

  it('answers another key, no key, or the same key with another request or format as a used token', async () => {
    const token = await cached();
    expect((await post(token, '{"row_ids":[1]}', withKey(KEY))).status).toBe(200);
    const refused = [
      await post(token, '{"row_ids":[1]}', withKey('j'.repeat(22))),
      await post(token, '{"row_ids":[1]}'),
      await post(token, '{"row_ids":[0]}', withKey(KEY)),
      await post(token, '{"row_ids":[1],"columns":["event"]}', withKey(KEY)),
      await post(token, '{"row_ids":[1]}', withKey(KEY, { accept: 'application/x-ndjson' })),
    ];
    for (const response of refused) {
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe('not_found');
    }
    expect((await post(token, '{"row_ids":[1]}', withKey(KEY))).status).toBe(200);
  });

  it('treats the same ids in another order or with duplicates as the same request', async () => {
    const token = await cached();
    expect((await post(token, '{"row_ids":[2,0]}', withKey(KEY))).status).toBe(200);
    expect((await post(token, '{"row_ids":[0,2,2]}', withKey(KEY))).status).toBe(200);
  });

  it('gives a key nothing when the token was redeemed without one', async () => {
    const token = await cached();
    expect((await post(token)).status).toBe(200);
    expect((await post(token, '{}', withKey(KEY))).status).toBe(404);
  });

  it('ends the repeats after the grace window', async () => {
    // The clock and the timers are fake, and jumped to either side of the window's end with a
    // minute of margin: a 50 ms window and real time made the repeats' 200 depend on the
    // machine's speed. They also run on with real time, for anything the request waits on.
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    try {
      const graceApp = createDataPlaneApp({ store, retryGraceMs: 120_000 });
      const token = await cached(600_000);
      const request = () =>
        graceApp.request(`/s2sp/data/${token}`, {
          method: 'POST',
          body: '{}',
          headers: withKey(KEY),
        });
      expect((await request()).status).toBe(200);
      expect((await request()).status).toBe(200);
      await vi.advanceTimersByTimeAsync(60_000);
      expect((await request()).status).toBe(200);
      await vi.advanceTimersByTimeAsync(120_000);
      expect((await request()).status).toBe(404);
      expect((await store.stats()).entries).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a bad key with 400 invalid_request, before the token is used', async () => {
    const token = await cached();
    for (const bad of [
      'short',
      'a'.repeat(31),
      `${'a'.repeat(21)}=`,
      'x'.repeat(129),
      'é'.repeat(30),
    ]) {
      const response = await post(token, '{}', withKey(bad));
      expect(response.status).toBe(400);
      expect((await response.json()).error.code).toBe('invalid_request');
    }
    expect((await post(token)).status).toBe(200);
  });

  it('ignores the header when the extension is off', async () => {
    const plainApp = createDataPlaneApp({ store, retryGraceMs: 0 });
    const token = await cached();
    const request = (key: string) =>
      plainApp.request(`/s2sp/data/${token}`, {
        method: 'POST',
        body: '{}',
        headers: withKey(key),
      });
    expect((await request('bad')).status).toBe(200);
    expect((await request(KEY)).status).toBe(404);
  });

  it('tells onTaken how long the entry stays for repeats', async () => {
    const seen: (number | undefined)[] = [];
    const hooked = createDataPlaneApp({ store, onTaken: (_key, graceMs) => seen.push(graceMs) });
    const send = async (headers: Record<string, string>) =>
      hooked.request(`/s2sp/data/${await cached()}`, { method: 'POST', body: '{}', headers });
    await send(withKey(KEY));
    await send({ 'content-type': 'application/json' });
    expect(seen).toEqual([60_000, undefined]);
  });
});
