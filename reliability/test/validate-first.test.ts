// Figure 4: validate before redeem. fast-check throws request bodies at one live token — any
// JSON, wrong member types, huge arrays, deep nesting, non-JSON, invalid UTF-8, wrong or odd
// content types, oversize bodies and lying Content-Length headers, plus valid requests. Nothing
// may answer 5xx, and a 4xx must leave the token redeemable (PROTOCOL §3: a malformed request
// does not use the token up). In-process `app.request()` on the full server app, for speed.

import { generateToken, tokenStorageKey } from '@s2sp/core';
import { makeStoredTable } from '@s2sp/core/testing';
import { createConsoleLogger, createS2SPServer } from '@s2sp/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordFigure } from '../src/figures.js';
import { bySize } from '../src/run-mode.js';

const RUNS = bySize(10_000, 100_000);
const MAX_REQUEST_BYTES = 64 * 1024;
const TABLE = makeStoredTable(30);

/** One fuzzed request. */
interface FuzzRequest {
  readonly kind: string;
  readonly body: string | Uint8Array<ArrayBuffer>;
  readonly headers: Record<string, string>;
}

const json = (kind: string, body: unknown): FuzzRequest => ({
  kind,
  body: JSON.stringify(body) ?? '',
  headers: { 'content-type': 'application/json' },
});

const junkValue = fc.oneof(
  fc.string(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.integer({ max: -1 }),
  fc.constant(2 ** 53),
  fc.constant(1e308),
  fc.object(),
  fc.array(fc.anything(), { maxLength: 5 }),
);

const anyJson = fc.jsonValue().map((value) => json('any JSON', value));

const wrongTypes = fc
  .record(
    {
      row_ids: fc.oneof(junkValue, fc.array(junkValue, { minLength: 1, maxLength: 20 })),
      columns: fc.oneof(
        junkValue,
        fc.array(fc.oneof(fc.integer(), fc.constant(null), fc.object()), { minLength: 1 }),
      ),
      extra: fc.anything(),
    },
    { requiredKeys: [] },
  )
  .map((value) => json('wrong types', value));

const hugeArray = fc
  .record({
    n: fc.integer({ min: 1000, max: 20_000 }),
    member: fc.constantFrom('row_ids', 'columns'),
    tail: fc.constantFrom('0', '-1', '"x"', '1.5', 'null', '[]', '{}', '1e400'),
  })
  .map(({ n, member, tail }) => {
    const item = member === 'row_ids' ? (i: number) => String(i) : (i: number) => `"c${i}"`;
    const items = Array.from({ length: n }, (_, i) => item(i));
    return {
      kind: 'huge array',
      body: `{"${member}":[${items.join(',')},${tail}]}`,
      headers: { 'content-type': 'application/json' },
    };
  });

const deepNesting = fc.integer({ min: 100, max: 30_000 }).map((depth) => ({
  kind: 'deep nesting',
  body: `{"row_ids":${'['.repeat(depth)}${']'.repeat(depth)}}`,
  headers: { 'content-type': 'application/json' },
}));

const notJson = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }).map((body) => ({
    kind: 'not JSON',
    body,
    headers: { 'content-type': 'application/json' },
  })),
  fc.uint8Array({ minLength: 1, maxLength: 300 }).map((body) => ({
    kind: 'raw bytes',
    body: new Uint8Array(body),
    headers: { 'content-type': 'application/json' },
  })),
  fc
    .constantFrom('{"row_ids":[1,2', '{"row_ids":[0]}}', "{'row_ids':[0]}", '\uFEFF{}', 'NaN')
    .map((body) => ({ kind: 'not JSON', body, headers: { 'content-type': 'application/json' } })),
);

const contentTypes = fc.constantFrom(
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/jsonx',
  'application/json-patch+json',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  '',
  ';;;',
  'application/',
);
const wrongContentType = fc
  .record({
    type: fc.option(contentTypes, { nil: undefined }),
    body: fc.oneof(fc.constant('{}'), fc.constant('{"row_ids":[1]}'), fc.constant(''), fc.string()),
  })
  .map(
    ({ type, body }): FuzzRequest => ({
      kind: 'content type',
      body,
      headers: type === undefined ? {} : { 'content-type': type },
    }),
  );

const oversize = fc
  .integer({ min: MAX_REQUEST_BYTES + 1, max: 4 * MAX_REQUEST_BYTES })
  .map((size) => ({
    kind: 'oversize',
    body: `{"row_ids":[0]${' '.repeat(size - 15)}}`,
    headers: { 'content-type': 'application/json' },
  }));

const lyingLength = fc
  .constantFrom('99999999999', String(MAX_REQUEST_BYTES + 1), '1e9', '-1', 'abc')
  .map((length) => ({
    kind: 'content-length',
    body: '{"row_ids":[0]}',
    headers: { 'content-type': 'application/json', 'content-length': length },
  }));

const valid = fc
  .record(
    {
      row_ids: fc.array(fc.nat({ max: 40 }), { maxLength: 10 }),
      columns: fc.subarray(['name', 'payload', '_row_id', 'unknown']),
    },
    { requiredKeys: [] },
  )
  .map((value) => json('valid', value));

const requestArb: fc.Arbitrary<FuzzRequest> = fc.oneof(
  { weight: 20, arbitrary: anyJson },
  { weight: 25, arbitrary: wrongTypes },
  { weight: 2, arbitrary: hugeArray },
  { weight: 1, arbitrary: deepNesting },
  { weight: 20, arbitrary: notJson },
  { weight: 15, arbitrary: wrongContentType },
  { weight: 2, arbitrary: oversize },
  { weight: 2, arbitrary: lyingLength },
  { weight: 13, arbitrary: valid },
);

describe('figure 4: validate before redeem', () => {
  it(`${RUNS.toLocaleString('en-US')} fuzzed request bodies → zero 5xx, and every 4xx leaves the token redeemable`, async () => {
    const lines: string[] = [];
    const server = createS2SPServer({
      name: 'fuzz',
      version: '1.0.0',
      maxDataRequestBytes: MAX_REQUEST_BYTES,
      logger: createConsoleLogger({ level: 'warn', write: (line) => lines.push(line) }),
    });
    const { store } = server;
    const mint = async () => {
      const token = generateToken();
      await store.put(await tokenStorageKey(token), TABLE, { ttlMs: 3_600_000 });
      return token;
    };
    let token = await mint();
    const statuses: Record<number, number> = {};
    const kinds: Record<string, number> = {};
    let fourXx = 0;
    let stillThere = 0;
    let provedByRedeeming = 0;
    const started = performance.now();
    try {
      await fc.assert(
        fc.asyncProperty(requestArb, async (request) => {
          kinds[request.kind] = (kinds[request.kind] ?? 0) + 1;
          const response = await server.app.request(`http://127.0.0.1/s2sp/data/${token}`, {
            method: 'POST',
            headers: request.headers,
            body: request.body,
          });
          const text = await response.text();
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          expect([200, 400, 413, 415]).toContain(response.status);
          const entries = (await store.stats()).entries;
          if (response.status === 200) {
            expect(JSON.parse(text)).toHaveProperty('body');
            expect(entries).toBe(0); // used up…
            token = await mint(); // …so the next request gets a fresh one
            return;
          }
          fourXx++;
          expect(JSON.parse(text)).toMatchObject({ error: { status: response.status } });
          expect(entries).toBe(1); // the malformed request did not use the token up
          stillThere++;
          // Now and then prove it the hard way: the token still redeems.
          if (fourXx % 1000 === 0) {
            const redeemed = await server.app.request(`http://127.0.0.1/s2sp/data/${token}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{"row_ids":[0]}',
            });
            expect(redeemed.status).toBe(200);
            provedByRedeeming++;
            token = await mint();
          }
        }),
        { numRuns: RUNS },
      );
      const last = await server.app.request(`http://127.0.0.1/s2sp/data/${token}`, {
        method: 'POST',
      });
      expect(last.status).toBe(200);
    } finally {
      await server.close();
    }
    const seconds = (performance.now() - started) / 1000;
    const fiveXx = Object.entries(statuses)
      .filter(([status]) => Number(status) >= 500)
      .reduce((sum, [, n]) => sum + n, 0);
    recordFigure({
      id: '4.1',
      title: `Fuzzed data-plane requests (${Object.entries(kinds)
        .map(([kind, n]) => `${kind} ${n}`)
        .join(', ')}) answered 5xx`,
      value: fiveXx,
      target: '0',
      met: fiveXx === 0,
    });
    recordFigure({
      id: '4.2',
      title: `Statuses of the ${RUNS.toLocaleString('en-US')} fuzzed requests`,
      value: Object.entries(statuses)
        .map(([status, n]) => `${status}: ${n}`)
        .join(', '),
    });
    recordFigure({
      id: '4.3',
      title: `4xx answers after which the token was still there (and redeemed with 200 after every 1000th: ${provedByRedeeming} times)`,
      value: `${stillThere}/${fourXx}`,
      target: `${fourXx}/${fourXx}`,
      met: stillThere === fourXx,
    });
    recordFigure({
      id: '4.4',
      title: `Fuzz run time (${RUNS.toLocaleString('en-US')} requests, in process)`,
      value: seconds,
      unit: 's',
    });
    // No request reached the server's "unexpected error" path either.
    expect(lines.filter((line) => line.includes('unexpected error'))).toEqual([]);
  }, 600_000);
});
